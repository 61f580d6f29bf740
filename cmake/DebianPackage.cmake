# `cpack -G DEB` in the build directory: wacamp_VERSION-REVISION_ARCH.deb (wacamp_0.1.0-1_amd64.deb)
# holding what `cmake --install` lays out, under /usr. What Debian wants beyond a plain install
# (units in /lib/systemd/system, a gzipped man page, copyright and changelog) is done to the staged
# tree by packaging/debian/stage.cmake.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME wacamp)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "wacamp developers <wacamp@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "batch campaign runner for a WhatsApp messaging service")
set(CPACK_PACKAGE_DESCRIPTION [[
wacamp reads a YAML campaign file and a CSV list of recipients, and sends text
or image messages through the HTTP API of a WhatsApp messaging automation
service, at the pace the service accepts. Every request is written to an
append-only result log before it leaves and its outcome after, so a rerun or
`wacamp resume` never sends twice to the same recipient.

It validates a campaign without sending, dry-runs it, keeps a ledger of
suppressed numbers shared by all campaigns, reports on result logs, and
includes a local sandbox of the service for rehearsals. Its systemd units run
a campaign by name, once or on a timer.
]])
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)   # Depends: from the libraries linked (dpkg-shlibdeps)

# The revision (the 1 of 0.1.0-1) is that of the changelog's latest entry; stage.cmake refuses to
# package when that entry is for another version than the project's.
set(wacamp_changelog ${PROJECT_SOURCE_DIR}/packaging/debian/changelog)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${wacamp_changelog})
file(STRINGS ${wacamp_changelog} wacamp_changelog_top LIMIT_COUNT 1)
if(NOT wacamp_changelog_top MATCHES "^wacamp \\(([^)]+)-([^)-]+)\\) ")
  message(FATAL_ERROR "${wacamp_changelog}:1: expected \"wacamp (VERSION-REVISION) …\", "
                      "got \"${wacamp_changelog_top}\"")
endif()
set(CPACK_DEBIAN_PACKAGE_RELEASE ${CMAKE_MATCH_2})

# What stage.cmake reads (CPack passes on only CPACK_* variables).
set(CPACK_PRE_BUILD_SCRIPTS ${PROJECT_SOURCE_DIR}/packaging/debian/stage.cmake)
set(CPACK_WACAMP_CHANGELOG_VERSION ${CMAKE_MATCH_1})
set(CPACK_WACAMP_SOURCE_DIR ${PROJECT_SOURCE_DIR})
set(CPACK_WACAMP_BINDIR ${CMAKE_INSTALL_BINDIR})
set(CPACK_WACAMP_MANDIR ${CMAKE_INSTALL_MANDIR})
set(CPACK_WACAMP_DOCDIR ${CMAKE_INSTALL_DOCDIR})

include(CPack)
