# Finds LLVM/MLIR 22 and makes every MLIR library link LLVM statically.
#
# Debian builds LLVM with LLVM_LINK_LLVM_DYLIB, so each exported MLIR target
# names the shared `LLVM` library in its link interface. libxpujit.so must not
# depend on libLLVM at run time (a host may load another LLVM, e.g. Mesa's
# lavapipe), so that entry is replaced by the static component archives.

find_package(MLIR REQUIRED CONFIG
  HINTS /usr/lib/llvm-22/lib/cmake/mlir ${XPU_LLVM_PREFIX}/lib/cmake/mlir)
if(NOT LLVM_VERSION_MAJOR EQUAL 22)
  message(FATAL_ERROR "xpujit needs LLVM/MLIR 22, found ${LLVM_PACKAGE_VERSION}")
endif()
message(STATUS "LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
include(TableGen)
include(AddLLVM)
include(AddMLIR)

set(XPU_LLVM_TARGETS ${LLVM_NATIVE_ARCH} NVPTX AMDGPU)
set(XPU_LLVM_COMPONENTS
  core support irreader bitreader bitwriter analysis passes transformutils
  target targetparser mc mcparser object linker frontendopenmp
  frontendoffloading orcjit jitlink executionengine ipo instcombine
  scalaropts vectorize aggressiveinstcombine codegen asmprinter
  ${LLVM_NATIVE_ARCH}codegen ${LLVM_NATIVE_ARCH}asmparser
  ${LLVM_NATIVE_ARCH}desc ${LLVM_NATIVE_ARCH}info
  nvptxcodegen nvptxdesc nvptxinfo
  amdgpucodegen amdgpuasmparser amdgpudesc amdgpuinfo amdgpuutils)
llvm_map_components_to_libnames(XPU_LLVM_STATIC_LIBS ${XPU_LLVM_COMPONENTS})

foreach(t IN LISTS MLIR_EXPORTED_TARGETS)
  if(TARGET ${t})
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "STATIC_LIBRARY")
      get_target_property(deps ${t} INTERFACE_LINK_LIBRARIES)
      if(deps)
        list(FIND deps LLVM at)
        if(NOT at EQUAL -1)
          list(REMOVE_ITEM deps LLVM)
          list(APPEND deps ${XPU_LLVM_STATIC_LIBS})
          set_target_properties(${t} PROPERTIES INTERFACE_LINK_LIBRARIES "${deps}")
        endif()
      endif()
    endif()
  endif()
endforeach()

# lld as a library, for AMDGPU code objects: its ELF driver and common
# part, linked statically like LLVM. Its LTO support refers to every LLVM
# target and to Polly; backends/hip/lld_lto_stubs.cpp stands in for those
# this library does not build in, from the list written here.
find_package(LLD REQUIRED CONFIG
  HINTS /usr/lib/llvm-22/lib/cmake/lld ${XPU_LLVM_PREFIX}/lib/cmake/lld)
llvm_map_components_to_libnames(XPU_LLD_LLVM_LIBS
  lto dtlto option debuginfodwarf demangle binaryformat bitwriter)
foreach(t lldCommon lldELF)
  get_target_property(deps ${t} INTERFACE_LINK_LIBRARIES)
  list(REMOVE_ITEM deps LLVM)
  list(APPEND deps ${XPU_LLD_LLVM_LIBS} ${XPU_LLVM_STATIC_LIBS})
  set_target_properties(${t} PROPERTIES INTERFACE_LINK_LIBRARIES "${deps}")
endforeach()
# LTO's pass extensions name Polly, which Debian ships separately.
get_target_property(deps LLVMExtensions INTERFACE_LINK_LIBRARIES)
list(REMOVE_ITEM deps Polly)
set_target_properties(LLVMExtensions PROPERTIES INTERFACE_LINK_LIBRARIES "${deps}")
set(XPU_LLD_STUBS "")
foreach(t IN LISTS LLVM_TARGETS_TO_BUILD)
  if(NOT t IN_LIST XPU_LLVM_TARGETS)
    string(APPEND XPU_LLD_STUBS "XPU_STUB_TARGET(${t})\n")
  endif()
  string(APPEND XPU_LLD_STUBS "XPU_STUB_ASM_PARSER(${t})\n")
endforeach()
set(XPU_LLD_STUBS_DIR ${CMAKE_BINARY_DIR}/generated)
file(CONFIGURE OUTPUT ${XPU_LLD_STUBS_DIR}/lld_stub_targets.inc
     CONTENT "${XPU_LLD_STUBS}")

# Compile flags every translation unit that includes LLVM/MLIR headers needs.
add_library(xpu_llvm_headers INTERFACE)
target_include_directories(xpu_llvm_headers SYSTEM INTERFACE
  ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
separate_arguments(XPU_LLVM_DEFINITIONS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
target_compile_options(xpu_llvm_headers INTERFACE ${XPU_LLVM_DEFINITIONS})
if(NOT LLVM_ENABLE_RTTI)
  target_compile_options(xpu_llvm_headers INTERFACE -fno-rtti)
endif()
