# Run by ctest, never by a project: the ctest-time half of scancheck_add_backend_tests (ScancheckPlugin.cmake).
# The generated file that includes it sets:
#   _scancheck_exe _scancheck_cmake      scancheck and cmake executables
#   _scancheck_source                    --plugin PATH | --plugin-in-process PATH | --worker COMMAND
#   _scancheck_regex _scancheck_glob     the BACKENDS glob and its regular expression
#   _scancheck_properties                property names, or ALL
#   _scancheck_cases _scancheck_seed _scancheck_prefix _scancheck_labels _scancheck_timeout
#   _scancheck_discovery_timeout _scancheck_findings _scancheck_extra
# It asks scancheck which backends the plugin or worker declares and adds one fuzz test per matching
# backend and one property test per property and kind (architecture x io dtype) among them. When that
# fails, it adds one test, <prefix>discovery, that fails and shows why.

function(_scancheck_discovery_failed command_and_args)
  set(name "${_scancheck_prefix}discovery")
  add_test("${name}" ${command_and_args})
  set_tests_properties("${name}" PROPERTIES LABELS "${_scancheck_labels}" TIMEOUT ${_scancheck_discovery_timeout})
endfunction()

# The message of a test that can only fail: `cmake -E echo` expected to fail prints it as its output.
function(_scancheck_discovery_message text)
  string(REPLACE ";" " " text "${text}")  # one echo argument
  _scancheck_discovery_failed("${_scancheck_cmake};-E;echo;scancheck_add_backend_tests: ${text}")
  set_tests_properties("${_scancheck_prefix}discovery" PROPERTIES WILL_FAIL TRUE)
endfunction()

function(_scancheck_discover)
  execute_process(COMMAND "${_scancheck_exe}" list --json ${_scancheck_source}
    OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE status TIMEOUT ${_scancheck_discovery_timeout})
  if(NOT status STREQUAL "0")
    # The same command again as the test: its output is scancheck's one-line reason.
    _scancheck_discovery_failed("${_scancheck_exe};list;${_scancheck_source}")
    return()
  endif()
  string(JSON count ERROR_VARIABLE json_error LENGTH "${listing}")
  if(json_error)
    _scancheck_discovery_message("`scancheck list --json` printed no JSON array: ${json_error}")
    return()
  endif()

  # `scancheck list` prints the built-ins first and the foreign backends after them (registration order,
  # backends/backend.hpp): read from the end and stop at the first built-in (empty provider).
  set(names "")
  set(kinds "")
  set(declared "")
  set(i ${count})
  while(i GREATER 0)
    math(EXPR i "${i} - 1")
    string(JSON provider GET "${listing}" ${i} provider)
    if(provider STREQUAL "")
      break()
    endif()
    string(JSON name GET "${listing}" ${i} name)
    list(PREPEND declared "${name}")
    if(name MATCHES "${_scancheck_regex}")
      list(PREPEND names "${name}")
      string(JSON architecture GET "${listing}" ${i} architecture)
      string(JSON io_dtype GET "${listing}" ${i} io_dtype)
      list(PREPEND kinds "${provider}|${architecture}|${io_dtype}")
    endif()
  endwhile()
  if(NOT names)
    list(JOIN declared ", " declared)
    _scancheck_discovery_message("no backend matches '${_scancheck_glob}' (${_scancheck_source} declares ${declared})")
    return()
  endif()
  list(REMOVE_DUPLICATES kinds)

  foreach(name IN LISTS names)
    set(test "${_scancheck_prefix}${name}")
    add_test("${test}" "${_scancheck_exe}" fuzz ${_scancheck_source} --backends "${name}" --cases ${_scancheck_cases}
      --seed ${_scancheck_seed} --findings "${_scancheck_findings}" ${_scancheck_extra})
    set_tests_properties("${test}" PROPERTIES LABELS "${_scancheck_labels}" TIMEOUT ${_scancheck_timeout})
  endforeach()

  set(properties ${_scancheck_properties})
  if(properties STREQUAL "ALL")
    execute_process(COMMAND "${_scancheck_exe}" property --list OUTPUT_VARIABLE table RESULT_VARIABLE status)
    if(NOT status STREQUAL "0")
      _scancheck_discovery_failed("${_scancheck_exe};property;--list")
      return()
    endif()
    string(REPLACE "\n" ";" lines "${table}")
    set(properties "")
    foreach(line IN LISTS lines)
      if(line MATCHES "^([a-z_]+)")
        list(APPEND properties "${CMAKE_MATCH_1}")
      endif()
    endforeach()
  endif()
  foreach(property IN LISTS properties)
    foreach(kind IN LISTS kinds)
      string(REPLACE "|" ";" kind "${kind}")
      list(GET kind 0 provider)
      list(GET kind 1 architecture)
      list(GET kind 2 io_dtype)
      set(token "${io_dtype}")
      if(io_dtype STREQUAL "float32")
        set(token fp32)
      elseif(io_dtype STREQUAL "bfloat16")
        set(token bf16)
      endif()
      set(test "${_scancheck_prefix}${provider}:${architecture}@${token}/${property}")
      add_test("${test}" "${_scancheck_exe}" property "${property}" --arch ${architecture} --io-dtype ${io_dtype}
        --cases ${_scancheck_cases} --seed ${_scancheck_seed} --findings "${_scancheck_findings}" ${_scancheck_source}
        ${_scancheck_extra})
      set_tests_properties("${test}" PROPERTIES LABELS "${_scancheck_labels}" TIMEOUT ${_scancheck_timeout})
    endforeach()
  endforeach()
endfunction()

_scancheck_discover()
