#!/usr/bin/env bash
# Compiles SDL2 (Debian's source package) for WebAssembly with emcc, the way Emscripten's own SDL2
# port does (file list from /usr/share/emscripten/tools/ports/sdl2.py, plus the files SDL 2.26
# added), into PREFIX/include/SDL2 + PREFIX/lib/libSDL2.a. About 15 s on 2 cores; cached by STAMP.
# Usage: build-sdl2-wasm.sh SDL_SRC PREFIX STAMP
set -euo pipefail
VL_TAG=sdl2-wasm
. "$(dirname "$0")/lib.sh"
src=$1 prefix=$2 stamp=$3

SOURCES='SDL.c SDL_assert.c SDL_dataqueue.c SDL_error.c SDL_hints.c SDL_log.c SDL_guid.c SDL_list.c
SDL_utils.c atomic/SDL_atomic.c atomic/SDL_spinlock.c audio/SDL_audio.c audio/SDL_audiocvt.c
audio/SDL_audiodev.c audio/SDL_audiotypecvt.c audio/SDL_mixer.c audio/SDL_wave.c cpuinfo/SDL_cpuinfo.c
dynapi/SDL_dynapi.c events/SDL_clipboardevents.c events/SDL_displayevents.c events/SDL_dropevents.c
events/SDL_events.c events/SDL_gesture.c events/SDL_keyboard.c events/SDL_mouse.c events/SDL_quit.c
events/SDL_touch.c events/SDL_windowevents.c file/SDL_rwops.c haptic/SDL_haptic.c
joystick/SDL_gamecontroller.c joystick/SDL_joystick.c joystick/controller_type.c power/SDL_power.c
render/SDL_d3dmath.c render/SDL_render.c render/SDL_yuv_sw.c render/opengles2/SDL_render_gles2.c
render/opengles2/SDL_shaders_gles2.c render/software/SDL_blendfillrect.c render/software/SDL_blendline.c
render/software/SDL_blendpoint.c render/software/SDL_drawline.c render/software/SDL_drawpoint.c
render/software/SDL_render_sw.c render/software/SDL_rotate.c render/software/SDL_triangle.c
sensor/SDL_sensor.c sensor/dummy/SDL_dummysensor.c stdlib/SDL_crc16.c stdlib/SDL_crc32.c
stdlib/SDL_getenv.c stdlib/SDL_iconv.c stdlib/SDL_malloc.c stdlib/SDL_qsort.c stdlib/SDL_stdlib.c
stdlib/SDL_string.c stdlib/SDL_strtokr.c thread/SDL_thread.c timer/SDL_timer.c video/SDL_RLEaccel.c
video/SDL_blit.c video/SDL_blit_0.c video/SDL_blit_1.c video/SDL_blit_A.c video/SDL_blit_N.c
video/SDL_blit_auto.c video/SDL_blit_copy.c video/SDL_blit_slow.c video/SDL_bmp.c video/SDL_clipboard.c
video/SDL_egl.c video/SDL_fillrect.c video/SDL_pixels.c video/SDL_rect.c video/SDL_shape.c
video/SDL_stretch.c video/SDL_surface.c video/SDL_video.c video/SDL_yuv.c
video/emscripten/SDL_emscriptenevents.c video/emscripten/SDL_emscriptenframebuffer.c
video/emscripten/SDL_emscriptenmouse.c video/emscripten/SDL_emscriptenopengles.c
video/emscripten/SDL_emscriptenvideo.c audio/emscripten/SDL_emscriptenaudio.c
video/dummy/SDL_nullevents.c video/dummy/SDL_nullframebuffer.c video/dummy/SDL_nullvideo.c
video/yuv2rgb/yuv_rgb.c audio/disk/SDL_diskaudio.c audio/dummy/SDL_dummyaudio.c
loadso/dlopen/SDL_sysloadso.c power/emscripten/SDL_syspower.c joystick/emscripten/SDL_sysjoystick.c
filesystem/emscripten/SDL_sysfilesystem.c timer/unix/SDL_systimer.c haptic/dummy/SDL_syshaptic.c
main/dummy/SDL_dummy_main.c locale/SDL_locale.c locale/emscripten/SDL_syslocale.c misc/SDL_url.c
misc/dummy/SDL_sysurl.c thread/generic/SDL_syscond.c thread/generic/SDL_sysmutex.c
thread/generic/SDL_syssem.c thread/generic/SDL_systhread.c thread/generic/SDL_systls.c'
# SDL_LEAN_AND_MEAN: no optimized software blitters, RLE or YUV (SDL_internal.h); the page draws with WebGL only,
# and the generic blitter (SDL_blit_slow.c) stays for any surface copy (issue 16: ~60 KB of blitters).
FLAGS="-O2 -w -DSDL_LEAN_AND_MEAN=1"

key="$(emcc --version | head -1) | $(basename "$src") | $(sha256sum "$0" | cut -c1-16) | $FLAGS"
if [ -f "$prefix/lib/libSDL2.a" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$key" ]; then
  vl_log "SDL2 for wasm cached: $prefix/lib/libSDL2.a"
  exit 0
fi
vl_log "compiling SDL2 for wasm with emcc ($(echo $SOURCES | wc -w) files) -> $prefix"
obj="$prefix.obj"
rm -rf "$prefix" "$obj" && mkdir -p "$prefix/include/SDL2" "$prefix/lib" "$obj"
cp "$src"/include/*.h "$prefix/include/SDL2/"
export src obj FLAGS
# Two jobs: these machines have two shared cores.
echo $SOURCES | tr ' ' '\n' | xargs -P 2 -I{} sh -c \
  'o="$obj/$(echo {} | tr / _).o"; emcc -c "$src/src/{}" -o "$o" -I"$src/include" $FLAGS || exit 255'
emar rcs "$prefix/lib/libSDL2.a" "$obj"/*.o
rm -rf "$obj"
echo "$key" > "$stamp"
vl_log "built $prefix/lib/libSDL2.a ($(du -k "$prefix/lib/libSDL2.a" | cut -f1) KB)"
