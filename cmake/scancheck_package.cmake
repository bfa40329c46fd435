# The installed CMake package (find_package(scancheck)): the scancheck executable, the C ABI plugin header
# include/scancheck/plugin.h, and lib/cmake/scancheck/ with the targets scancheck::scancheck (the
# executable) and scancheck::plugin_api (the header and DLPack's), the functions scancheck_add_plugin and
# scancheck_add_backend_tests (ScancheckPlugin.cmake) and the ctest-time discovery script they use.
#   cmake --install build/default --prefix ~/.local      then, in a user's project:
#   find_package(scancheck REQUIRED)       (CMAKE_PREFIX_PATH=~/.local)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The plugin API: a header only, with DLPack's (Debian's libdlpack-dev).
find_path(SCANCHECK_DLPACK_INCLUDE_DIR dlpack/dlpack.h REQUIRED)
add_library(scancheck_plugin_api INTERFACE)
add_library(scancheck::plugin_api ALIAS scancheck_plugin_api)
target_include_directories(scancheck_plugin_api INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<BUILD_INTERFACE:${SCANCHECK_DLPACK_INCLUDE_DIR}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(scancheck_plugin_api PROPERTIES EXPORT_NAME plugin_api)
set_target_properties(scancheck PROPERTIES EXPORT_NAME scancheck)

set(SCANCHECK_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/scancheck)
install(TARGETS scancheck scancheck_plugin_api EXPORT scancheckTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/scancheck/plugin.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/scancheck)
install(EXPORT scancheckTargets NAMESPACE scancheck:: DESTINATION ${SCANCHECK_CMAKE_INSTALL_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/scancheckConfig.cmake.in
  ${PROJECT_BINARY_DIR}/scancheckConfig.cmake INSTALL_DESTINATION ${SCANCHECK_CMAKE_INSTALL_DIR})
# The plugin ABI is versioned on its own (SCANCHECK_PLUGIN_ABI_VERSION); the package follows the
# executable's version, and a 0.x release is compatible only within its minor version.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/scancheckConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/scancheckConfig.cmake ${PROJECT_BINARY_DIR}/scancheckConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/ScancheckPlugin.cmake ${PROJECT_SOURCE_DIR}/cmake/scancheck_discover_backends.cmake
  DESTINATION ${SCANCHECK_CMAKE_INSTALL_DIR})

# `pip install .` at the repository root (pyproject.toml, scikit-build-core) installs the component `wheel`
# alone: the executable, into the wheel's scripts folder, which pip puts beside the environment's python.
if(SKBUILD)
  install(TARGETS scancheck RUNTIME DESTINATION ${SKBUILD_SCRIPTS_DIR} COMPONENT wheel)
endif()
