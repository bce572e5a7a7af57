# Every error text ebb replies with is spelled in server/core/errors.h and server/core/errors.cc (ctest:
# error_literals). This fails on a string literal elsewhere in server/ that begins with a Redis
# error code and a space ("ERR ...", "-NOPERM ...", "CLUSTERDOWN ..."); // comments may quote them.
#
# Usage: cmake -DSOURCE_DIR=<repo> -P tests/error_literals_check.cmake
set(codes ERR NOPERM WRONGTYPE BUSY BUSYKEY NOSCRIPT MOVED ASK CLUSTERDOWN CROSSSLOT TRYAGAIN
          READONLY LOADING MASTERDOWN NOREPLICAS EXECABORT NOAUTH WRONGPASS NOPROTO MISCONF NOTBUSY
          UNKILLABLE OOM IOERR)
list(JOIN codes "|" alternatives)
set(literal "\"-?(${alternatives}) ")

set(violations "")
file(GLOB_RECURSE files ${SOURCE_DIR}/server/*.h ${SOURCE_DIR}/server/*.cc)
list(REMOVE_ITEM files ${SOURCE_DIR}/server/core/errors.h ${SOURCE_DIR}/server/core/errors.cc)
list(SORT files)
foreach(file ${files})
  file(READ ${file} content)
  if(NOT content MATCHES "${literal}")
    continue()
  endif()
  # One list element per line: CMake's list separators and brackets become plain text first.
  string(REPLACE ";" "<semicolon>" content "${content}")
  string(REPLACE "[" "<open>" content "${content}")
  string(REPLACE "]" "<close>" content "${content}")
  string(REPLACE "\\" "<backslash>" content "${content}")
  string(REPLACE "\n" ";" lines "${content}")
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    string(REGEX REPLACE "(^|[ \t])//.*$" "" code "${line}")
    if(code MATCHES "${literal}")
      file(RELATIVE_PATH relative ${SOURCE_DIR} ${file})
      string(STRIP "${line}" shown)
      string(REPLACE "<semicolon>" ";" shown "${shown}")
      string(REPLACE "<open>" "[" shown "${shown}")
      string(REPLACE "<close>" "]" shown "${shown}")
      string(REPLACE "<backslash>" "\\" shown "${shown}")
      string(APPEND violations "  ${relative}:${number}: ${shown}\n")
    endif()
  endforeach()
endforeach()

if(violations)
  message(FATAL_ERROR "Error texts outside server/core/errors.h and server/core/errors.cc (move them there):\n"
                      "${violations}")
endif()
message(STATUS "error_literals: every error text is spelled in server/core/errors.h or server/core/errors.cc")
