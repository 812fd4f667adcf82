# Lists what upstream mlir-opt registers, as candidates for memopt's tables:
# its passes (`mlir-opt --list-passes`), its pass pipelines (the "Pass
# Pipelines:" part of `mlir-opt --help`) and its dialects
# (`mlir-opt --show-dialects`). The C API cannot enumerate them. mlir-opt
# also holds its test library's passes, which the C API cannot run:
# ListUpstreamRegistry.c keeps only the names the C API parses.
#   cmake -DMLIR_OPT=mlir-opt -DCANDIDATES=out.txt -P UpstreamRegistry.cmake
# Writes one line per candidate: "pass<TAB>name<TAB>summary",
# "pipeline<TAB>name<TAB>summary" or "dialect<TAB>name".
function(run_mlir_opt flag out)
  execute_process(COMMAND "${MLIR_OPT}" ${flag} OUTPUT_VARIABLE text RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "'${MLIR_OPT} ${flag}' failed")
  endif()
  # A CMake list is ';'-separated: keep summaries whole.
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "\n" ";" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

set(candidates "")
run_mlir_opt(--list-passes pass_lines)
foreach(line IN LISTS pass_lines)
  # Passes are indented by two spaces, their options by four.
  if(line MATCHES "^  --([a-z0-9][a-z0-9._-]*) +-   (.*)$")
    string(APPEND candidates "pass\t${CMAKE_MATCH_1}\t${CMAKE_MATCH_2}\n")
  endif()
endforeach()

run_mlir_opt(--help help_lines)
set(in_pipelines FALSE)
foreach(line IN LISTS help_lines)
  if(line MATCHES "^    Pass Pipelines:")
    set(in_pipelines TRUE)
  elseif(in_pipelines AND line MATCHES "^  --")
    # The next general option ends the list.
    break()
  elseif(in_pipelines AND line MATCHES "^      --([a-z0-9][a-z0-9._-]*) +-   (.*)$")
    # Pipelines are indented by six spaces, their options by eight.
    string(APPEND candidates "pipeline\t${CMAKE_MATCH_1}\t${CMAKE_MATCH_2}\n")
  endif()
endforeach()
if(NOT in_pipelines)
  message(FATAL_ERROR "'${MLIR_OPT} --help' lists no pass pipelines")
endif()

run_mlir_opt(--show-dialects dialect_lines)
# One line: "Available Dialects: acc,affine,...".
string(REGEX REPLACE "^Available Dialects: " "" dialect_lines "${dialect_lines}")
string(REPLACE "," ";" dialect_names "${dialect_lines}")
foreach(name IN LISTS dialect_names)
  string(STRIP "${name}" name)
  if(name MATCHES "^[a-z_0-9]+$")
    string(APPEND candidates "dialect\t${name}\n")
  endif()
endforeach()

file(WRITE "${CANDIDATES}" "${candidates}")
