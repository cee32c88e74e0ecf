# Where Dear ImGui and SDL2 come from in the web build (scripts/deps.sh fills these in; see
# docs/building.md, "Toolchains"). Both paths give the same targets: vramlens_imgui (ImGui + SDL2/OpenGL3 backends)
# and vramlens_sdl2 (SDL2 for wasm).
set(VRAMLENS_IMGUI_DIR "$ENV{VRAMLENS_IMGUI_DIR}" CACHE PATH "Dear ImGui 1.86 source tree (imgui.cpp, backends/)")
set(VRAMLENS_SDL2_DIR "$ENV{VRAMLENS_SDL2_DIR}" CACHE PATH
    "SDL2 compiled for wasm (include/SDL2, lib/libSDL2.a); empty: Emscripten's port (-sUSE_SDL=2)")
if(NOT EXISTS "${VRAMLENS_IMGUI_DIR}/imgui.cpp")
  message(FATAL_ERROR "VRAMLENS_IMGUI_DIR='${VRAMLENS_IMGUI_DIR}' holds no imgui.cpp: run scripts/deps.sh "
                      "(it fetches the sources) or pass -DVRAMLENS_IMGUI_DIR=<imgui source tree>")
endif()

add_library(vramlens_sdl2 INTERFACE)
if(VRAMLENS_SDL2_DIR)
  if(NOT EXISTS "${VRAMLENS_SDL2_DIR}/lib/libSDL2.a")
    message(FATAL_ERROR "VRAMLENS_SDL2_DIR='${VRAMLENS_SDL2_DIR}' holds no lib/libSDL2.a: run scripts/deps.sh")
  endif()
  target_include_directories(vramlens_sdl2 SYSTEM INTERFACE ${VRAMLENS_SDL2_DIR}/include/SDL2)
  # What the SDL2 port would add at link time (emscripten tools/ports/sdl2.py linker_setup); the
  # @file form because CMake/Ninja escaping mangles '$' (toolchain.md pitfall 4).
  target_link_libraries(vramlens_sdl2 INTERFACE ${VRAMLENS_SDL2_DIR}/lib/libSDL2.a
    "-sDEFAULT_LIBRARY_FUNCS_TO_INCLUDE=@${CMAKE_SOURCE_DIR}/cmake/sdl2_library_funcs.json")
else()
  target_compile_options(vramlens_sdl2 INTERFACE -sUSE_SDL=2)
  target_link_options(vramlens_sdl2 INTERFACE -sUSE_SDL=2)
endif()

set(_imgui ${VRAMLENS_IMGUI_DIR})
# imgui_draw.cpp without Dear ImGui's built-in ProggyClean font (issue 16): ImFontAtlas::Build() and
# GetTexDataAs*() call AddFontDefault() when no font was added, so the 12 KB base85 string (9.5 KB
# gzip) was linked though the page always adds its own (web/main.cpp, assets/fonts; the web build
# stops without one, web/CMakeLists.txt). The copy in the build folder returns NULL at the top of
# AddFontDefault(), which leaves the string unreferenced for the compiler to drop; nothing else changes.
set(_imgui_draw ${CMAKE_BINARY_DIR}/generated/imgui_draw_no_default_font.cpp)
file(READ ${_imgui}/imgui_draw.cpp _draw_src)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_imgui}/imgui_draw.cpp)
string(FIND "${_draw_src}" "ImFont* ImFontAtlas::AddFontDefault(const ImFontConfig* font_cfg_template)\n{\n" _at)
if(_at EQUAL -1)
  message(FATAL_ERROR "vramlens: ${_imgui}/imgui_draw.cpp has no AddFontDefault() as in Dear ImGui 1.86")
endif()
string(REPLACE "ImFont* ImFontAtlas::AddFontDefault(const ImFontConfig* font_cfg_template)\n{\n"
               "ImFont* ImFontAtlas::AddFontDefault(const ImFontConfig* font_cfg_template)\n{\n    IM_UNUSED(font_cfg_template); return NULL;  // vramlens: no built-in font (cmake/web_deps.cmake)\n"
               _draw_src "${_draw_src}")
# Nor the software mouse cursors' 3.4 KB bitmap (issue 16): the atlas is built as with
# ImFontAtlasFlags_NoMouseCursors (a 2x2 white square instead of the cursor shapes), which Dear ImGui
# draws only with io.MouseDrawCursor, off in the page: SDL's backend sets the browser's own cursors.
foreach(_cond "if (!(atlas->Flags & ImFontAtlasFlags_NoMouseCursors))" "if (Flags & ImFontAtlasFlags_NoMouseCursors)")
  string(FIND "${_draw_src}" "${_cond}" _at)
  if(_at EQUAL -1)
    message(FATAL_ERROR "vramlens: ${_imgui}/imgui_draw.cpp has no '${_cond}' as in Dear ImGui 1.86")
  endif()
endforeach()
string(REPLACE "if (!(atlas->Flags & ImFontAtlasFlags_NoMouseCursors))"
               "if (false)  /* vramlens: no mouse cursor bitmap (cmake/web_deps.cmake) */" _draw_src "${_draw_src}")
string(REPLACE "if (Flags & ImFontAtlasFlags_NoMouseCursors)"
               "if (true)  /* vramlens: no mouse cursor bitmap (cmake/web_deps.cmake) */" _draw_src "${_draw_src}")
file(WRITE ${_imgui_draw}.new "#line 1 \"${_imgui}/imgui_draw.cpp\"\n${_draw_src}")
configure_file(${_imgui_draw}.new ${_imgui_draw} COPYONLY)  # rewritten only when it changes
add_library(vramlens_imgui STATIC
  ${_imgui}/imgui.cpp ${_imgui_draw} ${_imgui}/imgui_tables.cpp ${_imgui}/imgui_widgets.cpp
  ${_imgui}/imgui_demo.cpp ${_imgui}/backends/imgui_impl_sdl.cpp ${_imgui}/backends/imgui_impl_opengl3.cpp)
target_include_directories(vramlens_imgui SYSTEM PUBLIC ${_imgui} ${_imgui}/backends)
# WebGL2 = OpenGL ES 3 (ImGui 1.86 would pick ES2/WebGL1 on Emscripten); no file I/O in the browser.
# The app shows neither ImGui's demo nor its metrics window.
target_compile_definitions(vramlens_imgui PUBLIC IMGUI_IMPL_OPENGL_ES3 IMGUI_DISABLE_FILE_FUNCTIONS IMGUI_DISABLE_DEMO_WINDOWS
                                                 IMGUI_DISABLE_METRICS_WINDOW)
target_link_libraries(vramlens_imgui PUBLIC vramlens_sdl2)
