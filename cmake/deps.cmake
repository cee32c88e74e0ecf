# Header-only dependencies, found the same way natively and under Emscripten.
add_library(vramlens_json INTERFACE)
if(EMSCRIPTEN)
  # The emscripten sysroot does not search /usr/include (toolchain.md pitfall 5): expose only the
  # json headers through a directory of their own.
  set(_json_dir ${CMAKE_BINARY_DIR}/sysdeps/include)
  if(NOT EXISTS ${_json_dir}/nlohmann)
    file(MAKE_DIRECTORY ${_json_dir})
    if(DEFINED VRAMLENS_JSON_INCLUDE_DIR)
      set(_src ${VRAMLENS_JSON_INCLUDE_DIR}/nlohmann)
    else()
      set(_src /usr/include/nlohmann)
    endif()
    file(CREATE_LINK ${_src} ${_json_dir}/nlohmann SYMBOLIC)
  endif()
  target_include_directories(vramlens_json SYSTEM INTERFACE ${_json_dir})
else()
  find_package(nlohmann_json 3.10 REQUIRED)
  target_link_libraries(vramlens_json INTERFACE nlohmann_json::nlohmann_json)
endif()

# {fmt}: Debian's libfmt-dev. Natively its compiled library; under Emscripten header-only (the
# sysroot does not search /usr/include: the fmt headers get a directory of their own, as json's).
add_library(vramlens_fmt INTERFACE)
if(EMSCRIPTEN)
  set(_fmt_dir ${CMAKE_BINARY_DIR}/sysdeps/fmt-include)
  if(NOT EXISTS ${_fmt_dir}/fmt)
    file(MAKE_DIRECTORY ${_fmt_dir})
    if(DEFINED VRAMLENS_FMT_INCLUDE_DIR)
      set(_src ${VRAMLENS_FMT_INCLUDE_DIR}/fmt)
    else()
      set(_src /usr/include/fmt)
    endif()
    if(NOT EXISTS ${_src}/format.h)
      message(FATAL_ERROR "vramlens: no {fmt} headers in ${_src} (Debian: apt-get install libfmt-dev; "
                          "or -DVRAMLENS_FMT_INCLUDE_DIR=<dir holding fmt/format.h>)")
    endif()
    file(CREATE_LINK ${_src} ${_fmt_dir}/fmt SYMBOLIC)
  endif()
  target_include_directories(vramlens_fmt SYSTEM INTERFACE ${_fmt_dir})
  # Size: no std::locale (the ',' is what the 'L' specifier would print; vramlens never uses it) and
  # no exceptions (every format string is checked at compile time).
  target_compile_definitions(vramlens_fmt INTERFACE FMT_HEADER_ONLY "FMT_STATIC_THOUSANDS_SEPARATOR=','" FMT_EXCEPTIONS=0)
else()
  find_package(fmt 9 REQUIRED)
  target_link_libraries(vramlens_fmt INTERFACE fmt::fmt)
endif()
