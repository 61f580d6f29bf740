#include <doctest/doctest.h>

#include <sys/stat.h>
#include <filesystem>
#include <fstream>
#include <vector>

#include "fakes.hpp"
#include "observe/text_file.hpp"

namespace {

// The names in `folder`.
std::vector<std::string> names_in(const std::filesystem::path& folder) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        names.push_back(entry.path().filename().string());
    }
    return names;
}

}  // namespace

TEST_SUITE("observe::text_file") {
    TEST_CASE("write_atomically replaces the file whole and leaves no temporary file behind") {
        fakes::TempDir dir;
        const auto path = dir.file("wacamp.prom");
        REQUIRE(observe::write_atomically(path, "a 1\n"));
        REQUIRE(observe::write_atomically(path, "a 2\nb 3\n"));
        CHECK(observe::read_small_file(path, 1024) == "a 2\nb 3\n");
        CHECK(names_in(dir.path) == std::vector<std::string>{"wacamp.prom"});
        struct stat st {};
        REQUIRE(::stat(path.c_str(), &st) == 0);
        CHECK((st.st_mode & 0777) == 0644);  // node_exporter runs as another user
    }

    TEST_CASE("write_atomically fails naming the file when its folder is gone, leaving nothing") {
        fakes::TempDir dir;
        const auto path = dir.file("gone/wacamp.prom");
        auto written = observe::write_atomically(path, "a 1\n");
        REQUIRE_FALSE(written);
        CHECK(written.error().message.find(path) != std::string::npos);
        CHECK(names_in(dir.path).empty());
    }

    TEST_CASE("write_atomically over a folder fails and removes its temporary file") {
        fakes::TempDir dir;
        std::filesystem::create_directory(dir.path / "taken.prom");
        auto written = observe::write_atomically(dir.file("taken.prom"), "a 1\n");
        REQUIRE_FALSE(written);
        CHECK(written.error().message.find("taken.prom") != std::string::npos);
        CHECK(names_in(dir.path) == std::vector<std::string>{"taken.prom"});
    }

    TEST_CASE("check_metrics_path: a .prom file in a folder that exists passes") {
        fakes::TempDir dir;
        CHECK(observe::check_metrics_path(dir.file("wacamp.prom")));
        std::ofstream(dir.file("old.prom")) << "x 1\n";
        CHECK(observe::check_metrics_path(dir.file("old.prom")));
    }

    TEST_CASE("check_metrics_path: another suffix, a missing folder, a file as folder, a folder as file fail") {
        fakes::TempDir dir;
        const auto fails_with = [](const std::string& path, const std::string& part) {
            auto checked = observe::check_metrics_path(path);
            REQUIRE_FALSE(checked);
            CHECK_MESSAGE(checked.error().message.find(part) != std::string::npos, checked.error().message);
            CHECK(checked.error().message.find(path) != std::string::npos);
        };
        fails_with(dir.file("wacamp.txt"), "must end in .prom");
        fails_with(dir.file("none/wacamp.prom"), "does not exist");
        std::ofstream(dir.file("plain")) << "x";
        fails_with(dir.file("plain/wacamp.prom"), "is not a folder");
        std::filesystem::create_directory(dir.path / "folder.prom");
        fails_with(dir.file("folder.prom"), "is a folder");
    }

    TEST_CASE("read_small_file: nothing for a missing file or one over the size given") {
        fakes::TempDir dir;
        CHECK_FALSE(observe::read_small_file(dir.file("none.prom"), 1024));
        std::ofstream(dir.file("big.prom")) << std::string(2000, 'x');
        CHECK_FALSE(observe::read_small_file(dir.file("big.prom"), 1024));
        CHECK(observe::read_small_file(dir.file("big.prom"), 4096)->size() == 2000);
    }
}
