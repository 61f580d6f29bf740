#pragma once
// Where a ledger file may live: the checks and the creation that come before SQLite opens it.

#include <string>

#include "util/result.hpp"

namespace account {

enum class FileState { missing, empty, present };
enum class Create { no, yes };

// Refuses a `path` that is a symbolic link or not a regular file. With Create::yes, makes the
// missing folders (mode 0700) and the file (mode 0600) when missing. Returns whether the file
// was there (with Create::yes: before this call), and empty (nothing written in it yet). Fails
// naming `path`, with the OS's reason.
util::Result<FileState> prepare_ledger_file(const std::string& path, Create create);

}  // namespace account
