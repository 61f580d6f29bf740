# Howard Hinnant's date/tz library (Debian: libhowardhinnant-date-dev), for IANA time zones:
# GCC 12's libstdc++ has no std::chrono::tzdb. Defines the imported target Date::Tz.
# Built as Debian builds it: the zones come from the system's tzdata (/usr/share/zoneinfo,
# USE_OS_TZDB=1), never from the network. The definitions change the library's classes, so
# they must match the build of libdate-tz.
find_path(Date_INCLUDE_DIR date/tz.h)
find_library(Date_TZ_LIBRARY date-tz)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Date REQUIRED_VARS Date_TZ_LIBRARY Date_INCLUDE_DIR)
if(Date_FOUND AND NOT TARGET Date::Tz)
  add_library(Date::Tz UNKNOWN IMPORTED)
  set_target_properties(Date::Tz PROPERTIES
    IMPORTED_LOCATION "${Date_TZ_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${Date_INCLUDE_DIR}"
    INTERFACE_COMPILE_DEFINITIONS "USE_OS_TZDB=1;HAS_REMOTE_API=0;ONLY_C_LOCALE=1"
    INTERFACE_LINK_LIBRARIES Threads::Threads)
endif()
mark_as_advanced(Date_INCLUDE_DIR Date_TZ_LIBRARY)
