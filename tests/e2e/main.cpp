#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

// Every wacamp these tests start keeps its account ledger under a folder of this process's own
// (XDG_STATE_HOME), never the user's: ctest runs test files in parallel. Campaign fixtures give
// each test a folder of its own on top of that.
int main(int argc, char** argv) {
    std::string state = (std::filesystem::temp_directory_path() / "wacamp-e2e-state-XXXXXX").string();
    if (::mkdtemp(state.data()) == nullptr) {
        return 1;
    }
    ::setenv("XDG_STATE_HOME", state.c_str(), 1);
    doctest::Context context(argc, argv);
    const int rc = context.run();
    std::error_code ec;
    std::filesystem::remove_all(state, ec);
    return rc;
}
