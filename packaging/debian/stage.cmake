# Run by `cpack -G DEB` (CPACK_PRE_BUILD_SCRIPTS, cmake/DebianPackage.cmake) on the tree that
# `cmake --install` staged under /usr, before it becomes the package. It adds what Debian wants and
# a plain install does not:
# - the systemd units in /lib/systemd/system (where Debian 12's packages put them), ExecStart
#   naming /usr/bin/wacamp rather than the binary under the build's CMAKE_INSTALL_PREFIX;
# - the man page gzipped;
# - /usr/share/doc/wacamp/copyright and changelog.Debian.gz, and lintian's overrides, from this
#   folder.
# Files are made 0644 and folders 0755 whatever the umask, and gzipped with -9n (no name, no time
# stamp): the same input gives the same files.
if(NOT CPACK_WACAMP_CHANGELOG_VERSION STREQUAL CPACK_PACKAGE_VERSION)
  message(FATAL_ERROR "packaging/debian/changelog: the latest entry is for "
                      "${CPACK_WACAMP_CHANGELOG_VERSION}, the project is ${CPACK_PACKAGE_VERSION} "
                      "(CMakeLists.txt): add an entry for it")
endif()
# The staging folder, the package's /: CPack does not document the variable, but its own
# generators read it.
set(root ${CPACK_TEMPORARY_DIRECTORY})
set(usr ${root}${CPACK_PACKAGING_INSTALL_PREFIX})
set(source ${CPACK_WACAMP_SOURCE_DIR})
set(file_mode OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
set(dir_mode OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

# folder(DIR): makes DIR and the folders above it that are missing.
function(folder dir)
  set(missing)
  while(NOT EXISTS ${dir})
    list(PREPEND missing ${dir})
    cmake_path(GET dir PARENT_PATH dir)
  endwhile()
  foreach(made IN LISTS missing)
    file(MAKE_DIRECTORY ${made})
    file(CHMOD ${made} PERMISSIONS ${dir_mode})
  endforeach()
endfunction()

# put(SOURCE DESTINATION): copies the file SOURCE to DESTINATION.
function(put source destination)
  cmake_path(GET destination PARENT_PATH dir)
  folder(${dir})
  file(COPY_FILE ${source} ${destination})
  file(CHMOD ${destination} PERMISSIONS ${file_mode})
endfunction()

# gzip_9n(FILE): replaces FILE with FILE.gz.
function(gzip_9n file)
  execute_process(COMMAND gzip -9n ${file} COMMAND_ERROR_IS_FATAL ANY)
  file(CHMOD ${file}.gz PERMISSIONS ${file_mode})
endfunction()

# The units, configured again for the package's binary, in place of the staged ones.
file(REMOVE_RECURSE ${usr}/lib/systemd)
file(GLOB usr_lib ${usr}/lib/*)
if(NOT usr_lib)
  file(REMOVE_RECURSE ${usr}/lib)
endif()
set(units ${root}/lib/systemd/system)
set(WACAMP_BINARY ${CPACK_PACKAGING_INSTALL_PREFIX}/${CPACK_WACAMP_BINDIR}/wacamp)
folder(${units})
configure_file(${source}/packaging/systemd/wacamp@.service.in ${units}/wacamp@.service @ONLY)
file(CHMOD ${units}/wacamp@.service PERMISSIONS ${file_mode})
put(${source}/packaging/systemd/wacamp@.timer ${units}/wacamp@.timer)

gzip_9n(${usr}/${CPACK_WACAMP_MANDIR}/man1/wacamp.1)

set(doc ${usr}/${CPACK_WACAMP_DOCDIR})
put(${source}/packaging/debian/copyright ${doc}/copyright)
put(${source}/packaging/debian/changelog ${doc}/changelog.Debian)
gzip_9n(${doc}/changelog.Debian)
put(${source}/packaging/debian/lintian-overrides ${usr}/share/lintian/overrides/wacamp)
