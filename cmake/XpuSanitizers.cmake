# Sanitizer and fuzzing builds. scripts/test.sh configures them in their own
# build directories; docs/sanitizers.md says why each option is here.
#
#   XPU_SANITIZE=address,undefined   ASan + UBSan (build-asan/)
#   XPU_SANITIZE=thread              TSan (build-tsan/)
#   XPU_FUZZ=ON                      coverage for libFuzzer everywhere, and
#                                    tests/fuzz targets linked with it
#
# LLVM and MLIR come from Debian as static libraries built without any of
# this: only xpujit's own code is instrumented.
set(XPU_SANITIZE "" CACHE STRING "Sanitizers to build with (address,undefined or thread)")
option(XPU_FUZZ "Instrument for libFuzzer and build the fuzz targets with it" OFF)

if(XPU_SANITIZE OR XPU_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "XPU_SANITIZE and XPU_FUZZ need clang (clang-22 with libclang-rt-22-dev)")
  endif()
endif()

if(XPU_SANITIZE)
  set(_xpu_san -fsanitize=${XPU_SANITIZE})
  # The sanitizer runtime is one shared library for every binary and for
  # libxpujit.so (which links with -z defs); Python loads it with LD_PRELOAD.
  list(APPEND _xpu_san_link ${_xpu_san} -shared-libsan)
  add_compile_options(${_xpu_san} -fno-omit-frame-pointer -g1)
  if(XPU_SANITIZE MATCHES "undefined")
    # -fno-sanitize=function: the check reads a type signature placed
    # before each function called through a pointer; functions of the
    # uninstrumented LLVM/MLIR libraries (passed as callbacks) have none, so
    # every such call would be reported.
    # -fno-sanitize-recover: a finding fails the test instead of a line in
    # its output.
    add_compile_options(-fno-sanitize=function -fno-sanitize-recover=all)
  endif()
  add_link_options(${_xpu_san_link})
  # The runtime a host program that is not instrumented (Python) preloads
  # to load libxpujit.so.
  if(XPU_SANITIZE MATCHES "address")
    set(_xpu_rt libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so)
  elseif(XPU_SANITIZE MATCHES "thread")
    set(_xpu_rt libclang_rt.tsan-${CMAKE_SYSTEM_PROCESSOR}.so)
  endif()
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${_xpu_rt}
                  OUTPUT_VARIABLE XPU_SANITIZER_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
  # Binaries find the shared runtime in the compiler's directory.
  get_filename_component(_xpu_rt_dir ${XPU_SANITIZER_RUNTIME} DIRECTORY)
  add_link_options(-Wl,-rpath,${_xpu_rt_dir})
endif()

if(XPU_FUZZ)
  # Coverage counters and comparison tracing in every object; the fuzz
  # targets add libFuzzer itself (-fsanitize=fuzzer).
  add_compile_options(-fsanitize=fuzzer-no-link)
  add_link_options(-fsanitize=fuzzer-no-link)
endif()
