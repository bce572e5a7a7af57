# The layering rule, checked over the sources (ctest: layering; the build's include views enforce
# it too). A file may include its own layer's headers and those of the layers below it:
#
#   common   -> common
#   storage  -> storage
#   protocol -> protocol, common
#   types    -> types, storage, common
#   server   -> server, types, storage, protocol, common
#
# Usage: cmake -DSOURCE_DIR=<repo> -P tests/layering_check.cmake
set(allowed_common common)
set(allowed_storage storage)
set(allowed_protocol protocol common)
set(allowed_types types storage common)
set(allowed_server server types storage protocol common)
set(layers common storage protocol types server)

set(violations "")
foreach(layer ${layers})
  file(GLOB_RECURSE files ${SOURCE_DIR}/${layer}/*.h ${SOURCE_DIR}/${layer}/*.cc)
  foreach(file ${files})
    file(STRINGS ${file} includes REGEX "^#include \"[a-z_]+/")
    foreach(line ${includes})
      string(REGEX REPLACE "^#include \"([a-z_]+)/.*" "\\1" target "${line}")
      list(FIND allowed_${layer} ${target} found)
      if(found EQUAL -1)
        file(RELATIVE_PATH relative ${SOURCE_DIR} ${file})
        string(APPEND violations "  ${relative}: ${line} (${layer} may include: ${allowed_${layer}})\n")
      endif()
    endforeach()
  endforeach()
endforeach()

if(violations)
  message(FATAL_ERROR "Includes against the layering:\n${violations}")
endif()
message(STATUS "layering: every include points to the same layer or one below it")
