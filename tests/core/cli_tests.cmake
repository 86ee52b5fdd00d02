# CLI-area unit tests (colour, report, pipeline, bench), included from tests/core/CMakeLists.txt.
add_executable(test_cli_core test_color.cpp test_report.cpp test_pipeline.cpp test_output_file.cpp
  test_methods_doc.cpp)
target_include_directories(test_cli_core PRIVATE ${PROJECT_SOURCE_DIR})
target_compile_definitions(test_cli_core PRIVATE GPUBLUR_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
target_link_libraries(test_cli_core PRIVATE gpublur_core gpublur_io gpublur_reference GTest::gtest_main)
gpublur_add_gtests(test_cli_core)
