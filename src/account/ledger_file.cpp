#include "account/ledger_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace account {

namespace {

util::Error os_error(const std::string& path, const std::string& what) {
    return util::fail("ledger " + path + ": " + what + ": " + std::strerror(errno));
}

// Makes the missing folders of `dir`, each 0700 (contact numbers are personal data); folders
// that exist are left as they are.
util::Result<void> make_folders(const std::filesystem::path& dir, const std::string& path) {
    if (dir.empty()) {
        return {};
    }
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            return util::fail("ledger " + path + ": " + dir.string() + " is not a folder");
        }
        return {};
    }
    if (auto parent = make_folders(dir.parent_path(), path); !parent) {
        return parent;
    }
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
        return os_error(path, "cannot create folder " + dir.string());
    }
    return {};
}

}  // namespace

util::Result<FileState> prepare_ledger_file(const std::string& path, Create create) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) {
        if (S_ISLNK(st.st_mode)) {
            return util::fail("ledger " + path + ": is a symbolic link; give the path of the file itself");
        }
        if (!S_ISREG(st.st_mode)) {
            return util::fail("ledger " + path + ": not a regular file");
        }
        return st.st_size == 0 ? FileState::empty : FileState::present;
    }
    if (errno != ENOENT) {
        return os_error(path, "cannot read");
    }
    if (create == Create::no) {
        return FileState::missing;
    }
    if (auto folders = make_folders(std::filesystem::path(path).parent_path(), path); !folders) {
        return folders.error();
    }
    // O_EXCL|O_NOFOLLOW: made here, by us, with 0600 — or left to whoever made it a moment ago
    // (SQLite refuses a symbolic link itself).
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) {
        return os_error(path, "cannot create");
    }
    if (fd >= 0) {
        ::close(fd);
    }
    return FileState::missing;
}

}  // namespace account
