# The layering rule, checked over the sources (ctest: layering; the build's include views enforce
# the outer layers too). A file may include its own layer's headers and those of the layers below
# it:
#
#   common   -> common
#   storage  -> storage
#   protocol -> protocol, common
#   types    -> types, storage, common
#   server   -> server, types, storage, protocol, common
#
# Inside server/ the same rule holds between its inner layers, lowest first (docs/architecture.md
# says what each folder owns):
#
#   core          core/                                  the row, the client, errors, counters
#   services      acl/ config/ io/ services/             what a handler uses beside its client
#   execution     dispatch/ scripting/                   what runs commands
#   distribution  replication/ cluster/ active_active/   the modes beside other servers
#   net           net/ metrics/                          the server, its connections, its metrics
#   commands      commands/                              the command rows
#   main          the files directly in server/          start-up and wiring
#
# An include that points up is allowed only when it is named in server_exceptions below, each with
# the reason it remains; an exception that no longer occurs fails the check too, so the list only
# shrinks.
#
# Usage: cmake -DSOURCE_DIR=<repo> -P tests/layering_check.cmake
set(allowed_common common)
set(allowed_storage storage)
set(allowed_protocol protocol common)
set(allowed_types types storage common)
set(allowed_server server types storage protocol common)
set(layers common storage protocol types server)

set(server_layers core services execution distribution net commands main)
set(server_core core)
set(server_services acl config io services)
set(server_execution dispatch scripting)
set(server_distribution replication cluster active_active)
set(server_net net metrics)
set(server_commands commands)
set(server_main top_level)

# Upward includes inside server/ that remain, as "<file> -> <included header>", each with the
# reason it remains. None does: a layer that needs something of a layer above asks an interface
# of its own that the layer above implements (dispatch/slot_ownership.h, dispatch/write_planner.h)
# or is handed what it needs by main (ServerContext's script engine factory).
set(server_exceptions)

set(violations "")

# The server/ part of `path` (relative to the repository): its folder, or top_level.
function(server_part path out)
  string(REGEX REPLACE "^server/" "" inner "${path}")
  if(inner MATCHES "/")
    string(REGEX REPLACE "/.*" "" part "${inner}")
  else()
    set(part top_level)
  endif()
  set(${out} ${part} PARENT_SCOPE)
endfunction()

set(index 0)
foreach(layer ${server_layers})
  foreach(part ${server_${layer}})
    set(rank_${part} ${index})
    set(layer_${part} ${layer})
  endforeach()
  math(EXPR index "${index} + 1")
endforeach()

set(used_exceptions "")
foreach(layer ${layers})
  file(GLOB_RECURSE files ${SOURCE_DIR}/${layer}/*.h ${SOURCE_DIR}/${layer}/*.cc)
  foreach(file ${files})
    file(RELATIVE_PATH relative ${SOURCE_DIR} ${file})
    if(layer STREQUAL "server")
      server_part(${relative} from)
      if(NOT DEFINED rank_${from})
        string(APPEND violations "  ${relative}: server/${from}/ belongs to no inner layer\n")
        continue()
      endif()
    endif()
    file(STRINGS ${file} includes REGEX "^#include \"[a-z_]+/")
    foreach(line ${includes})
      string(REGEX REPLACE "^#include \"([a-z_]+)/.*" "\\1" target "${line}")
      list(FIND allowed_${layer} ${target} found)
      if(found EQUAL -1)
        string(APPEND violations "  ${relative}: ${line} (${layer} may include: ${allowed_${layer}})\n")
        continue()
      endif()
      if(NOT (layer STREQUAL "server" AND target STREQUAL "server"))
        continue()
      endif()
      string(REGEX REPLACE "^#include \"([^\"]*)\".*" "\\1" header "${line}")
      server_part(${header} to)
      if(NOT DEFINED rank_${to})
        string(APPEND violations "  ${relative}: ${line} (server/${to}/ belongs to no inner layer)\n")
      elseif(rank_${to} GREATER rank_${from})
        set(edge "${relative} -> ${header}")
        list(FIND server_exceptions "${edge}" excepted)
        if(excepted EQUAL -1)
          string(APPEND violations
                 "  ${relative}: ${line} (${layer_${from}} may not include ${layer_${to}})\n")
        else()
          list(APPEND used_exceptions "${edge}")
        endif()
      endif()
    endforeach()
  endforeach()
endforeach()

foreach(edge ${server_exceptions})
  list(FIND used_exceptions "${edge}" found)
  if(found EQUAL -1)
    string(APPEND violations "  ${edge}: no longer occurs; remove it from server_exceptions\n")
  endif()
endforeach()

if(violations)
  message(FATAL_ERROR "Includes against the layering:\n${violations}")
endif()
message(STATUS "layering: every include points to the same layer or one below it")
