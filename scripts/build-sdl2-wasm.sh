#!/usr/bin/env bash
# Compiles SDL2 (Debian's source package) for WebAssembly with emcc, as the platform layer of a
# WebGL page: video (the Emscripten driver and its WebGL context), events (mouse, keyboard, touch,
# text input, clipboard), timers and threads' generic stubs. The file list starts from
# Emscripten's own SDL2 port (/usr/share/emscripten/tools/ports/sdl2.py, plus the files SDL 2.26
# added) less what the page never calls, each left out with SDL's own *_DISABLED config macro where
# SDL.c or SDL_events.c would otherwise start it (issue 16). Into PREFIX/include/SDL2 +
# PREFIX/lib/libSDL2.a; about 10 s on 2 cores; cached by STAMP.
# Usage: build-sdl2-wasm.sh SDL_SRC PREFIX STAMP
set -euo pipefail
VL_TAG=sdl2-wasm
. "$(dirname "$0")/lib.sh"
src=$1 prefix=$2 stamp=$3

# Left out entirely (nothing in the page calls them, so nothing links them; a later call into one
# fails to link, naming the function): audio (SDL_AUDIO_DISABLED), haptic (already disabled by
# SDL_config_emscripten.h), sensors (SDL_SENSOR_DISABLED), power (SDL_POWER_DISABLED), filesystem
# paths (SDL_FILESYSTEM_DISABLED), locale, SDL_OpenURL, the dummy video driver, and SDL_Renderer's
# drivers (SDL_RENDER_DISABLED: no GLES2 or software renderer; SDL_render.c stays because
# SDL_video.c's window-surface fallback names it). Joystick and game controller
# (SDL_JOYSTICK_DISABLED: SDL_Init never starts them, so their mapping database is not linked)
# stay compiled, with SDL's dummy joystick driver only, because Dear ImGui's SDL backend names
# SDL_GameControllerOpen (it calls it only with gamepad navigation on, which the page leaves off).
# Shared objects: SDL_LOADSO_DISABLED with SDL's dummy loader.
SOURCES='SDL.c SDL_assert.c SDL_dataqueue.c SDL_error.c SDL_hints.c SDL_log.c SDL_guid.c SDL_list.c
SDL_utils.c atomic/SDL_atomic.c atomic/SDL_spinlock.c cpuinfo/SDL_cpuinfo.c dynapi/SDL_dynapi.c
events/SDL_clipboardevents.c events/SDL_displayevents.c events/SDL_dropevents.c events/SDL_events.c
events/SDL_gesture.c events/SDL_keyboard.c events/SDL_mouse.c events/SDL_quit.c events/SDL_touch.c
events/SDL_windowevents.c file/SDL_rwops.c
joystick/SDL_gamecontroller.c joystick/SDL_joystick.c joystick/controller_type.c
joystick/dummy/SDL_sysjoystick.c
loadso/dummy/SDL_sysloadso.c render/SDL_render.c render/SDL_yuv_sw.c
stdlib/SDL_crc16.c stdlib/SDL_crc32.c stdlib/SDL_getenv.c stdlib/SDL_iconv.c stdlib/SDL_malloc.c
stdlib/SDL_qsort.c stdlib/SDL_stdlib.c stdlib/SDL_string.c stdlib/SDL_strtokr.c thread/SDL_thread.c
timer/SDL_timer.c video/SDL_RLEaccel.c
video/SDL_blit.c video/SDL_blit_0.c video/SDL_blit_1.c video/SDL_blit_A.c video/SDL_blit_N.c
video/SDL_blit_auto.c video/SDL_blit_copy.c video/SDL_blit_slow.c video/SDL_bmp.c video/SDL_clipboard.c
video/SDL_egl.c video/SDL_fillrect.c video/SDL_pixels.c video/SDL_rect.c video/SDL_shape.c
video/SDL_stretch.c video/SDL_surface.c video/SDL_video.c video/SDL_yuv.c
video/emscripten/SDL_emscriptenevents.c video/emscripten/SDL_emscriptenframebuffer.c
video/emscripten/SDL_emscriptenmouse.c video/emscripten/SDL_emscriptenopengles.c
video/emscripten/SDL_emscriptenvideo.c video/yuv2rgb/yuv_rgb.c
timer/unix/SDL_systimer.c main/dummy/SDL_dummy_main.c
thread/generic/SDL_syscond.c thread/generic/SDL_sysmutex.c
thread/generic/SDL_syssem.c thread/generic/SDL_systhread.c thread/generic/SDL_systls.c'
DISABLED="-DSDL_AUDIO_DISABLED=1 -DSDL_JOYSTICK_DISABLED=1 -DSDL_SENSOR_DISABLED=1 -DSDL_POWER_DISABLED=1
-DSDL_RENDER_DISABLED=1 -DSDL_LOADSO_DISABLED=1 -DSDL_FILESYSTEM_DISABLED=1"
# SDL_config_emscripten.h names the drivers of every subsystem; SDL's own CMake build with these
# subsystems off (-DSDL_JOYSTICK=OFF ...) writes a config without them. LEAN_CONFIG is that: included
# before each file, it reads SDL's config once (it has an include guard) and takes the drivers out.
LEAN_CONFIG='#include "SDL_config.h"
#undef SDL_AUDIO_DRIVER_DISK
#undef SDL_AUDIO_DRIVER_DUMMY
#undef SDL_AUDIO_DRIVER_EMSCRIPTEN
#undef SDL_JOYSTICK_EMSCRIPTEN
#undef SDL_SENSOR_DUMMY
#undef SDL_LOADSO_DLOPEN
#undef SDL_VIDEO_RENDER_OGL_ES2
#undef SDL_POWER_EMSCRIPTEN
#undef SDL_FILESYSTEM_EMSCRIPTEN'
# SDL_LEAN_AND_MEAN: no optimized software blitters, RLE or YUV (SDL_internal.h); the page draws with WebGL only,
# and the generic blitter (SDL_blit_slow.c) stays for any surface copy (issue 16: ~60 KB of blitters).
# eglGetProcAddress: SDL's Emscripten GL driver stores Emscripten's, whose name table links every
# WebGL 1 and 2 entry point (~250 imports, and their JavaScript in the glue) though Dear ImGui's
# OpenGL 3 backend calls GLES3 directly (IMGUI_IMPL_OPENGL_ES3). SDL asks it only for the names
# SDL_video.c looks up (EGL extensions it asks for may be absent: it checks for NULL); vl_egl_proc.c
# answers those and NULL otherwise.
EGL_PROC='#include <GLES3/gl3.h>
#include <string.h>
void *vl_egl_get_proc_address(const char *name) {
  static const struct { const char *name; void *fn; } known[] = {
    {"glGetString", (void *)glGetString}, {"glGetStringi", (void *)glGetStringi},
    {"glGetIntegerv", (void *)glGetIntegerv}, {"glGetError", (void *)glGetError},
    {"glBindFramebuffer", (void *)glBindFramebuffer},
    {"glGetFramebufferAttachmentParameteriv", (void *)glGetFramebufferAttachmentParameteriv}};
  for (unsigned i = 0; i < sizeof known / sizeof known[0]; ++i)
    if (strcmp(name, known[i].name) == 0) return known[i].fn;
  return NULL;
}'
# -Oz: nothing of SDL is on the estimator's path (the sweep); -flto lets the page's link drop and
# inline across it like the rest of the page.
FLAGS="-Oz -flto -w -DSDL_LEAN_AND_MEAN=1 -DeglGetProcAddress=vl_egl_get_proc_address $(echo $DISABLED)"

key="$(emcc --version | head -1) | $(basename "$src") | $(sha256sum "$0" | cut -c1-16) | $FLAGS"
if [ -f "$prefix/lib/libSDL2.a" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$key" ]; then
  vl_log "SDL2 for wasm cached: $prefix/lib/libSDL2.a"
  exit 0
fi
vl_log "compiling SDL2 for wasm with emcc ($(echo $SOURCES | wc -w) files) -> $prefix"
obj="$prefix.obj"
rm -rf "$prefix" "$obj" && mkdir -p "$prefix/include/SDL2" "$prefix/lib" "$obj"
cp "$src"/include/*.h "$prefix/include/SDL2/"
echo "$LEAN_CONFIG" > "$obj/lean_config.h"
echo "$EGL_PROC" > "$obj/vl_egl_proc.c"
emcc -c "$obj/vl_egl_proc.c" -o "$obj/vl_egl_proc.o" -Oz -flto
FLAGS="$FLAGS -include $obj/lean_config.h"
export src obj FLAGS
# Two jobs: these machines have two shared cores.
echo $SOURCES | tr ' ' '\n' | xargs -P 2 -I{} sh -c \
  'o="$obj/$(echo {} | tr / _).o"; emcc -c "$src/src/{}" -o "$o" -I"$src/include" $FLAGS || exit 255'
emar rcs "$prefix/lib/libSDL2.a" "$obj"/*.o
rm -rf "$obj"
echo "$key" > "$stamp"
vl_log "built $prefix/lib/libSDL2.a ($(du -k "$prefix/lib/libSDL2.a" | cut -f1) KB)"
