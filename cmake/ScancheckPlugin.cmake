# scancheck's CMake functions for a user's project (installed with the package; find_package(scancheck)
# includes this file). The model is CMake's GoogleTest module: one call builds a plugin, one call turns
# scancheck's verdicts on its backends into ctest results (so `ctest --output-junit` reports them).
#
# scancheck_add_plugin(NAME SOURCES src... [LIBRARIES lib...])
#   A C ABI plugin (include/scancheck/plugin.h): a MODULE library named NAME.so (no "lib" prefix), linked
#   to scancheck::plugin_api and LIBRARIES, its symbols hidden but the entry point (SCANCHECK_PLUGIN_EXPORT),
#   undefined symbols an error at link time rather than at load time. CUDA sources work in a project that
#   enabled CUDA; they link the shared CUDA runtime, the one scancheck itself uses, so the device pointers
#   and the stream scancheck passes belong to the runtime the plugin calls.
#
# scancheck_add_backend_tests(PLUGIN target-or-path | WORKER "command" [IN_PROCESS]
#                             [BACKENDS glob] [CASES n] [SEED s] [PROPERTIES name... | ALL]
#                             [LABELS label...] [TEST_PREFIX prefix] [TIMEOUT s] [DISCOVERY_TIMEOUT s]
#                             [EXTRA_ARGS arg...])
#   Registers, for every backend of the plugin or worker whose name matches BACKENDS (a shell glob over
#   whole names as in `scancheck --backends`: * ? [...] {a,b}; default every one), one test
#       <TEST_PREFIX><backend>                          scancheck fuzz --backends <backend> --cases CASES --seed SEED
#   and, for every property in PROPERTIES (ALL: the six of `scancheck property --list`) and every
#   architecture and io dtype among those backends, one test
#       <TEST_PREFIX><provider>:<architecture>@<dtype>/<property>
#                                                       scancheck property <property> --arch A --io-dtype D
#   (a property runs on every backend of its kind that the plugin or worker declares, beside the sequential
#   baseline and a few random built-ins). A failure's output holds the shrunk case and its repro command;
#   findings are saved under <build dir>/scancheck-findings/. IN_PROCESS loads a plugin with
#   --plugin-in-process (faster; a crash ends the test instead of becoming a fault row). EXTRA_ARGS go to
#   every scancheck command (e.g. --timeout 30). Every test gets LABELS (default: scancheck) and TIMEOUT.
#
#   Discovery happens when ctest runs, not when CMake configures or builds: a generated file in the
#   directory's TEST_INCLUDE_FILES runs `scancheck list --json --plugin ...` (or --worker) and adds a test
#   per matching backend, as gtest_discover_tests(... DISCOVERY_MODE PRE_TEST) does. Why then: the
#   backends exist only once the plugin is built (or, for a worker, whenever its command runs: a Python
#   worker is no build artefact, and its imports, devices and environment are those of the test run, not
#   of the build); discovery at ctest time sees exactly what the tests will run, needs no build step for
#   a worker, and keeps configure and build from running user code. It costs one hello per ctest run
#   (milliseconds for a plugin). If discovery fails (the plugin does not load, the worker breaks hello, no
#   backend matches), a single test named <TEST_PREFIX>discovery runs the failing command, so the failure
#   is a visible test result with scancheck's one-line reason rather than a silent absence of tests.
include_guard(GLOBAL)

set(_SCANCHECK_PLUGIN_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(scancheck_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;LIBRARIES")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "scancheck_add_plugin(${name}): SOURCES is required")
  endif()
  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE scancheck::plugin_api ${ARG_LIBRARIES})
  set_target_properties(${name} PROPERTIES PREFIX "" C_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden
    CUDA_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON CUDA_RUNTIME_LIBRARY Shared)
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    target_link_options(${name} PRIVATE "LINKER:--no-undefined")
  endif()
endfunction()

# The CMake regular expression of a shell glob as scancheck matches it (fnmatch without flags, so * also
# matches '/'; one {a,b,...} alternation), anchored at both ends.
function(_scancheck_glob_to_regex glob out)
  set(regex "")
  set(in_class FALSE)
  set(in_braces FALSE)
  string(LENGTH "${glob}" n)
  set(i 0)
  while(i LESS n)
    string(SUBSTRING "${glob}" ${i} 1 ch)
    if(in_class)
      if(ch STREQUAL "]")
        set(in_class FALSE)
      endif()
      string(APPEND regex "${ch}")
    elseif(ch STREQUAL "*")
      string(APPEND regex ".*")
    elseif(ch STREQUAL "?")
      string(APPEND regex ".")
    elseif(ch STREQUAL "[")
      set(in_class TRUE)
      string(APPEND regex "[")
      math(EXPR next "${i} + 1")
      if(next LESS n)
        string(SUBSTRING "${glob}" ${next} 1 following)
        if(following STREQUAL "!")
          string(APPEND regex "^")
          set(i ${next})
        endif()
      endif()
    elseif(ch STREQUAL "{" AND NOT in_braces)
      set(in_braces TRUE)
      string(APPEND regex "(")
    elseif(ch STREQUAL "}" AND in_braces)
      set(in_braces FALSE)
      string(APPEND regex ")")
    elseif(ch STREQUAL "," AND in_braces)
      string(APPEND regex "|")
    elseif(ch MATCHES "[.+^$()|{}\\\\]")
      string(APPEND regex "\\${ch}")
    else()
      string(APPEND regex "${ch}")
    endif()
    math(EXPR i "${i} + 1")
  endwhile()
  set(${out} "^${regex}$" PARENT_SCOPE)
endfunction()

# `set(name [==[a]==] [==[b]==] ...)`: a CMake list written so that any character survives.
function(_scancheck_set_command out variable)
  set(text "set(${variable}")
  foreach(word IN LISTS ARGN)
    string(APPEND text " [==[${word}]==]")
  endforeach()
  set(${out} "${text})" PARENT_SCOPE)
endfunction()

function(scancheck_add_backend_tests)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "IN_PROCESS"
    "PLUGIN;WORKER;BACKENDS;CASES;SEED;TEST_PREFIX;TIMEOUT;DISCOVERY_TIMEOUT" "PROPERTIES;LABELS;EXTRA_ARGS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "scancheck_add_backend_tests: unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if((ARG_PLUGIN AND ARG_WORKER) OR (NOT ARG_PLUGIN AND NOT ARG_WORKER))
    message(FATAL_ERROR "scancheck_add_backend_tests: give exactly one of PLUGIN and WORKER")
  endif()
  if(ARG_IN_PROCESS AND NOT ARG_PLUGIN)
    message(FATAL_ERROR "scancheck_add_backend_tests: IN_PROCESS applies to a PLUGIN")
  endif()
  if(NOT TARGET scancheck::scancheck)
    message(FATAL_ERROR "scancheck_add_backend_tests: no scancheck::scancheck target (find_package(scancheck) first)")
  endif()
  foreach(default BACKENDS:* CASES:100 SEED:1 LABELS:scancheck TIMEOUT:1500 DISCOVERY_TIMEOUT:120)
    string(REPLACE ":" ";" pair "${default}")
    list(GET pair 0 key)
    list(GET pair 1 value)
    if(NOT DEFINED ARG_${key} OR "${ARG_${key}}" STREQUAL "")
      set(ARG_${key} "${value}")
    endif()
  endforeach()

  if(ARG_PLUGIN)
    set(file "${ARG_PLUGIN}")
    get_filename_component(label "${ARG_PLUGIN}" NAME_WE)
    if(TARGET ${ARG_PLUGIN})
      set(file "$<TARGET_FILE:${ARG_PLUGIN}>")
    elseif(NOT IS_ABSOLUTE "${file}")
      set(file "${CMAKE_CURRENT_BINARY_DIR}/${file}")
    endif()
    if(ARG_IN_PROCESS)
      set(source --plugin-in-process "${file}")
    else()
      set(source --plugin "${file}")
    endif()
  else()
    set(source --worker "${ARG_WORKER}")
    string(MAKE_C_IDENTIFIER "${ARG_WORKER}" label)
  endif()
  string(MAKE_C_IDENTIFIER "${label}" id)
  string(SUBSTRING "${id}" 0 40 id)  # a file name: a worker's command line may be long
  _scancheck_glob_to_regex("${ARG_BACKENDS}" regex)

  get_property(count DIRECTORY PROPERTY _SCANCHECK_BACKEND_TESTS)
  if(NOT count)
    set(count 0)
  endif()
  math(EXPR count "${count} + 1")
  set_property(DIRECTORY PROPERTY _SCANCHECK_BACKEND_TESTS ${count})
  set(base "${CMAKE_CURRENT_BINARY_DIR}/scancheck_tests_${count}_${id}")

  set(content "# Generated by scancheck_add_backend_tests (ScancheckPlugin.cmake): read by ctest.\n")
  foreach(list_variable "_scancheck_exe;$<TARGET_FILE:scancheck::scancheck>" "_scancheck_source;${source}"
          "_scancheck_extra;${ARG_EXTRA_ARGS}" "_scancheck_labels;${ARG_LABELS}"
          "_scancheck_properties;${ARG_PROPERTIES}")
    list(POP_FRONT list_variable variable)
    _scancheck_set_command(line ${variable} ${list_variable})
    string(APPEND content "${line}\n")
  endforeach()
  foreach(pair "_scancheck_regex;${regex}" "_scancheck_glob;${ARG_BACKENDS}" "_scancheck_cases;${ARG_CASES}"
          "_scancheck_seed;${ARG_SEED}" "_scancheck_prefix;${ARG_TEST_PREFIX}" "_scancheck_timeout;${ARG_TIMEOUT}"
          "_scancheck_discovery_timeout;${ARG_DISCOVERY_TIMEOUT}"
          "_scancheck_findings;${CMAKE_CURRENT_BINARY_DIR}/scancheck-findings" "_scancheck_cmake;${CMAKE_COMMAND}")
    list(POP_FRONT pair variable)
    string(APPEND content "set(${variable} [==[${pair}]==])\n")
  endforeach()
  string(APPEND content "include([==[${_SCANCHECK_PLUGIN_CMAKE_DIR}/scancheck_discover_backends.cmake]==])\n")
  # One file per configuration (the plugin's path may depend on it), and the one ctest includes, which
  # picks the configuration ctest runs (-C) when there is a file for it, else the build type.
  file(GENERATE OUTPUT "${base}_$<CONFIG>.cmake" CONTENT "${content}")
  file(WRITE "${base}.cmake"
    "set(_scancheck_file [==[${base}_${CMAKE_BUILD_TYPE}.cmake]==])\n"
    "if(CTEST_CONFIGURATION_TYPE AND EXISTS \"${base}_\${CTEST_CONFIGURATION_TYPE}.cmake\")\n"
    "  set(_scancheck_file \"${base}_\${CTEST_CONFIGURATION_TYPE}.cmake\")\n"
    "endif()\n"
    "include(\"\${_scancheck_file}\")\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${base}.cmake")
endfunction()
