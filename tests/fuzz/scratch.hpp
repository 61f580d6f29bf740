#pragma once
// Where the fuzzers write the file each input must be read from: /dev/shm when there is one
// (memory, not disk, at tens of thousands of inputs a second), else the system's temp folder.

#include <filesystem>
#include <system_error>

inline std::filesystem::path scratch_base() {
    std::error_code ec;
    return std::filesystem::is_directory("/dev/shm", ec) ? std::filesystem::path("/dev/shm")
                                                         : std::filesystem::temp_directory_path();
}
