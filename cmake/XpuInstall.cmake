# Install rules: the library (stripped, versioned with its SONAME), the header,
# the xpujit tool, a CMake package exporting xpujit::xpujit, and xpujit.pc.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS xpujit EXPORT xpujitTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/xpu_c.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS xpujit-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The library carries the symbol tables of the static LLVM and MLIR it links
# (about 140 MB); the installed copy keeps only what the dynamic linker needs.
find_program(XPU_STRIP NAMES llvm-strip-22 llvm-strip strip
  HINTS /usr/lib/llvm-22/bin)
if(XPU_STRIP)
  install(CODE "
    foreach(f \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:xpujit>\"
              \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/$<TARGET_FILE_NAME:xpujit-cli>\")
      execute_process(COMMAND ${XPU_STRIP} --strip-all \"\${f}\" RESULT_VARIABLE rc)
      if(rc)
        message(FATAL_ERROR \"stripping \${f} failed\")
      endif()
    endforeach()")
endif()

set(XPU_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/xpujit)
install(EXPORT xpujitTargets NAMESPACE xpujit:: DESTINATION ${XPU_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/xpujitConfig.cmake.in
  ${PROJECT_BINARY_DIR}/xpujitConfig.cmake INSTALL_DESTINATION ${XPU_CMAKE_DIR})
# The C ABI is stable within a major version.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/xpujitConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/xpujitConfig.cmake
              ${PROJECT_BINARY_DIR}/xpujitConfigVersion.cmake
  DESTINATION ${XPU_CMAKE_DIR})

# pkg-config: paths relative to the .pc file's prefix, so a relocated prefix works.
file(RELATIVE_PATH XPU_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(${PROJECT_SOURCE_DIR}/cmake/xpujit.pc.in
  ${PROJECT_BINARY_DIR}/xpujit.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/xpujit.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
