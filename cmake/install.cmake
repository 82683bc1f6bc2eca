# `cmake --install` puts oversim where another project finds it with find_package(oversim CONFIG):
# the libraries, their headers under <prefix>/include/oversim (so "sim/world.h" includes as in
# the tree), the oversim command, and a CMake package with the targets
#   oversim::sim, oversim::models (every model: redis, db, redlock, zookeeper, mq, etcd, each also
#   alone as oversim::<name>), oversim::protocols, oversim::properties, oversim::report,
#   oversim::cli (the whole command as oversim_main(), cli/oversim_main.h), oversim::gtest (the
#   GoogleTest helpers, properties/gtest.h), oversim::rapidcheck (generators of sales,
#   properties/rapidcheck.h), and oversim::oversim (all of them but the last two),
# and a version file (the same major version is compatible). docs/writing-your-design.md.
include(CMakePackageConfigHelpers)

get_property(oversim_public_libraries GLOBAL PROPERTY OVERSIM_PUBLIC_LIBRARIES)

add_library(oversim_models INTERFACE)
target_link_libraries(oversim_models INTERFACE oversim_redis oversim_db oversim_redlock oversim_zookeeper oversim_mq oversim_etcd)
set_target_properties(oversim_models PROPERTIES EXPORT_NAME models)
add_library(oversim::models ALIAS oversim_models)

add_library(oversim_all INTERFACE)
target_link_libraries(oversim_all INTERFACE oversim_cli oversim_report oversim_properties oversim_protocols oversim_models oversim_sim)
set_target_properties(oversim_all PROPERTIES EXPORT_NAME oversim)
add_library(oversim::oversim ALIAS oversim_all)

# GoogleTest helpers (properties/gtest.h, header only): where GoogleTest is found.
set(oversim_gtest_target "")
if(TARGET GTest::gtest)
  add_library(oversim_gtest INTERFACE)
  target_link_libraries(oversim_gtest INTERFACE oversim_properties GTest::gtest)
  set_target_properties(oversim_gtest PROPERTIES EXPORT_NAME gtest)
  add_library(oversim::gtest ALIAS oversim_gtest)
  set(oversim_gtest_target oversim_gtest)
endif()

# rapidcheck generators of sales (properties/rapidcheck.h, header only): where rapidcheck is found.
set(oversim_rapidcheck_target "")
if(TARGET rapidcheck)
  add_library(oversim_rapidcheck INTERFACE)
  target_link_libraries(oversim_rapidcheck INTERFACE oversim_properties rapidcheck)
  set_target_properties(oversim_rapidcheck PROPERTIES EXPORT_NAME rapidcheck)
  add_library(oversim::rapidcheck ALIAS oversim_rapidcheck)
  set(oversim_rapidcheck_target oversim_rapidcheck)
endif()

install(TARGETS ${oversim_public_libraries} oversim_models oversim_all ${oversim_gtest_target} ${oversim_rapidcheck_target}
        EXPORT oversimTargets
        ARCHIVE DESTINATION lib
        LIBRARY DESTINATION lib
        INCLUDES DESTINATION include/oversim)
install(TARGETS oversim RUNTIME DESTINATION bin)
# The public headers: every header of the layers a design is written against, none of the tests'.
foreach(layer sim models protocols properties report cli)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${layer}/ DESTINATION include/oversim/${layer}
          FILES_MATCHING PATTERN "*.h" PATTERN "*_test*" EXCLUDE)
endforeach()
install(EXPORT oversimTargets NAMESPACE oversim:: DESTINATION lib/cmake/oversim)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/oversimConfig.cmake.in ${PROJECT_BINARY_DIR}/oversimConfig.cmake
                              INSTALL_DESTINATION lib/cmake/oversim)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/oversimConfigVersion.cmake VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/oversimConfig.cmake ${PROJECT_BINARY_DIR}/oversimConfigVersion.cmake DESTINATION lib/cmake/oversim)
