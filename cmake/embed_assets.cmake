# Presets are data (assets/presets/*.json), embedded into the core at build time as string
# literals so the web app and the CLI need no file access. Generated: embedded_assets.cpp.
file(GLOB VRAMLENS_PRESET_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/assets/presets/*.json)
string(REPLACE ";" "|" _embed_list "${VRAMLENS_PRESET_FILES}")
set(_embed_out ${CMAKE_BINARY_DIR}/generated/embedded_assets.cpp)
# The page's copy leaves the presets' citations out (cmake/embed_files.cmake, STRIP_CITATIONS), and
# of the models only the one its first view shows (the default scenario's, web/ui/app.cpp
# default_scenario); it fetches the whole list after that view (web/CMakeLists.txt, issue 16).
set(_embed_strip OFF)
set(VRAMLENS_FIRST_VIEW_MODEL "")
if(EMSCRIPTEN)
  set(_embed_strip ON)
  set(VRAMLENS_FIRST_VIEW_MODEL llama-3.1-8b)
endif()
add_custom_command(
  OUTPUT ${_embed_out}
  COMMAND ${CMAKE_COMMAND} -DOUT=${_embed_out} "-DFILES=${_embed_list}" -DSTRIP_CITATIONS=${_embed_strip}
          -DKEEP_MODEL=${VRAMLENS_FIRST_VIEW_MODEL} -P ${CMAKE_SOURCE_DIR}/cmake/embed_files.cmake
  DEPENDS ${VRAMLENS_PRESET_FILES} ${CMAKE_SOURCE_DIR}/cmake/embed_files.cmake
  COMMENT "Embedding presets into the core"
  VERBATIM)
target_sources(vramlens_core PRIVATE ${_embed_out})
# The chunks join into one literal per file; models.json outgrew the 65,536 characters C++ guarantees
# (clang's -Woverlength-strings under -Wpedantic -Werror, the web build). GCC and clang take far longer
# literals, so the warning is off for this generated file only.
set_source_files_properties(${_embed_out} PROPERTIES COMPILE_OPTIONS -Wno-overlength-strings)
