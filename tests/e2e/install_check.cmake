# Installs the build into PREFIX (BINDIR, DOCDIR: GNUInstallDirs' relative folders), then checks what a user of the installed tree relies on: the executable
# runs from there (nothing read from the build or source folders at run time), says the project's version,
# blurs a bundled image, and the docs it points to are installed.
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}): ${out}${err}")
endif()
set(bin ${PREFIX}/${BINDIR}/gpublur)
foreach(f ${bin} ${PREFIX}/${DOCDIR}/cli.md ${PREFIX}/${DOCDIR}/methods.md
          ${PREFIX}/${DOCDIR}/report.schema.json ${PREFIX}/${DOCDIR}/bench.schema.json
          ${PREFIX}/${DOCDIR}/quality.schema.json ${PREFIX}/${DOCDIR}/README.md)
  if(NOT EXISTS ${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
# Run from a folder outside the build and source trees, so no relative path can reach them.
set(work ${PREFIX}/work)
file(MAKE_DIRECTORY ${work})
execute_process(COMMAND ${bin} --version WORKING_DIRECTORY ${work}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "gpublur ${VERSION}")
  message(FATAL_ERROR "installed gpublur --version: exit ${rc}, '${out}${err}', expected 'gpublur ${VERSION}'")
endif()
file(COPY ${SOURCE_DIR}/testdata/landscape_rgb8.png DESTINATION ${work})
execute_process(COMMAND ${bin} -q blur landscape_rgb8.png -o out -b cpu --sigma 2 --report r.json
                WORKING_DIRECTORY ${work} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS ${work}/out/landscape_rgb8.png OR NOT EXISTS ${work}/r.json)
  message(FATAL_ERROR "installed gpublur blur: exit ${rc}, '${out}${err}'")
endif()
file(REMOVE_RECURSE ${PREFIX})
