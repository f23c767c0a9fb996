# libtorch's other include paths for Ember::torch_compat: one forwarding header per line of
# include/compat/forwarded_headers.txt, written into ${EMBER_COMPAT_FORWARD_DIR} (a build-tree include
# directory searched after include/compat/, and installed beside it). A header is rewritten only when
# its text changes, so reconfiguring rebuilds nothing.
set(EMBER_COMPAT_FORWARD_DIR ${CMAKE_CURRENT_BINARY_DIR}/compat_forward)
set(list_file ${CMAKE_CURRENT_SOURCE_DIR}/include/compat/forwarded_headers.txt)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${list_file})
file(STRINGS ${list_file} lines)
set(EMBER_COMPAT_FORWARDED_HEADERS)
foreach(line IN LISTS lines)
  if(line MATCHES "^#" OR line STREQUAL "")
    continue()
  endif()
  if(line MATCHES "^([^ ]+) -> ([^ ]+)$")
    set(path ${CMAKE_MATCH_1})
    set(target ${CMAKE_MATCH_2})
  elseif(line MATCHES "^[^ ]+$")
    set(path ${line})
    set(target torch/torch.h)
  else()
    message(FATAL_ERROR "${list_file}: cannot read the line '${line}'")
  endif()
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/include/compat/${path})
    message(FATAL_ERROR "${list_file}: ${path} is a real header in include/compat/; remove its line")
  endif()
  file(CONFIGURE OUTPUT ${EMBER_COMPAT_FORWARD_DIR}/${path} CONTENT
"// libtorch's <${path}>, for Ember::torch_compat: written by cmake/CompatHeaders.cmake from
// include/compat/forwarded_headers.txt.
#pragma once
#include <${target}>
")
  list(APPEND EMBER_COMPAT_FORWARDED_HEADERS ${path})
endforeach()
