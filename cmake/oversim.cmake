# One-line helpers to declare a library, a test or a benchmark with the project's warnings.
# The folder is the namespace and the target: sim/ builds oversim_sim, models/redis builds
# oversim_redis, and includes start at the repository root ("sim/clock.h").

set(OVERSIM_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Werror)
# Floating-point contraction changes results between builds; we avoid floats on simulation
# paths anyway, but pin it so a stray double cannot differ between -O levels.
set(OVERSIM_FLAGS -ffp-contract=off)

if(OVERSIM_SANITIZE)
  set(OVERSIM_SAN_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_compile_options(${OVERSIM_SAN_FLAGS})
  add_link_options(${OVERSIM_SAN_FLAGS})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    # sim/asan_fibers.cpp interposes __asan_handle_no_return, which needs the runtime as a
    # shared library (g++ links libasan.so; clang++ links it statically unless told).
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libclang_rt.asan-x86_64.so
                    OUTPUT_VARIABLE OVERSIM_ASAN_SO OUTPUT_STRIP_TRAILING_WHITESPACE)
    get_filename_component(OVERSIM_ASAN_DIR "${OVERSIM_ASAN_SO}" DIRECTORY)
    add_link_options(-shared-libsan -Wl,-rpath,${OVERSIM_ASAN_DIR})
  endif()
  add_compile_definitions(OVERSIM_SANITIZE=1)
endif()

# The allocator the oversim command, its benchmarks and its tests link (never the libraries: a
# program that embeds them keeps its own). A large sale keeps hundreds of thousands of small
# objects alive (messages in flight, queued commands, timers); glibc's malloc spends about a
# third of such a run in its free lists, and with jemalloc (Debian's libjemalloc-dev) the same
# runs take 0.6 to 0.8 of the time (docs/performance.md, issue 31 part 4). The sanitizers bring
# their own allocator, so they keep the system one.
# Nothing oversim computes depends on addresses: the allocator never changes a run.
set(OVERSIM_ALLOCATOR "jemalloc" CACHE STRING "Allocator linked into oversim's programs: jemalloc or system")
set_property(CACHE OVERSIM_ALLOCATOR PROPERTY STRINGS jemalloc system)
set(OVERSIM_ALLOCATOR_LIB "")
if(OVERSIM_ALLOCATOR STREQUAL "jemalloc" AND NOT OVERSIM_SANITIZE AND NOT OVERSIM_FUZZ)
  find_library(OVERSIM_JEMALLOC jemalloc)
  if(NOT OVERSIM_JEMALLOC)
    message(FATAL_ERROR "oversim: OVERSIM_ALLOCATOR=jemalloc but libjemalloc was not found: run scripts/install-deps.sh (libjemalloc-dev), or configure with -DOVERSIM_ALLOCATOR=system")
  endif()
  set(OVERSIM_ALLOCATOR_LIB ${OVERSIM_JEMALLOC})
elseif(NOT OVERSIM_ALLOCATOR STREQUAL "jemalloc" AND NOT OVERSIM_ALLOCATOR STREQUAL "system")
  message(FATAL_ERROR "oversim: OVERSIM_ALLOCATOR must be jemalloc or system, not '${OVERSIM_ALLOCATOR}'")
endif()

# Links the chosen allocator into a program (kept even where the linker drops unreferenced
# libraries: jemalloc is used through malloc's own symbols).
function(oversim_use_allocator target)
  if(OVERSIM_ALLOCATOR_LIB)
    target_link_libraries(${target} PRIVATE -Wl,--push-state,--no-as-needed ${OVERSIM_ALLOCATOR_LIB} -Wl,--pop-state)
  endif()
endfunction()

function(_oversim_target_setup target)
  target_compile_options(${target} PRIVATE ${OVERSIM_WARNINGS} ${OVERSIM_FLAGS})
  # From the tree, includes start at the repository root; installed, at <prefix>/include/oversim
  # (cmake/install.cmake): "sim/world.h" either way.
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<INSTALL_INTERFACE:include/oversim>)
endfunction()

# oversim_library(NAME SOURCES a.cpp b.cpp DEPS x y [INTERNAL])
# Every library but an INTERNAL one is installed and exported as oversim::<NAME without the
# oversim_ prefix> (oversim_sim: oversim::sim), cmake/install.cmake.
function(oversim_library name)
  cmake_parse_arguments(ARG "INTERNAL" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  _oversim_target_setup(${name})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  if(NOT ARG_INTERNAL)
    string(REGEX REPLACE "^oversim_" "" export_name ${name})
    set_target_properties(${name} PROPERTIES EXPORT_NAME ${export_name})
    add_library(oversim::${export_name} ALIAS ${name})
    set_property(GLOBAL APPEND PROPERTY OVERSIM_PUBLIC_LIBRARIES ${name})
  endif()
endfunction()

# oversim_test(NAME SOURCES a_test.cpp DEPS x y): one GoogleTest binary, tests discovered one by one.
function(oversim_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  _oversim_target_setup(${name})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} oversim_test_main rapidcheck GTest::gtest)
  oversim_use_allocator(${name})
  target_include_directories(${name} SYSTEM PRIVATE ${rapidcheck_INCLUDE_DIRS})
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)
endfunction()

# oversim_bench(NAME SOURCES a_bench.cpp DEPS x y)
function(oversim_bench name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  _oversim_target_setup(${name})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} benchmark::benchmark)
  oversim_use_allocator(${name})
endfunction()
