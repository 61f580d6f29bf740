#pragma once
// Shared by the campaign file tests: a temporary campaign folder, a test environment and a
// minimal valid campaign to vary.

#include <doctest/doctest.h>

#include <unistd.h>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "campaign/campaign_file.hpp"

namespace campaign_file_test {

namespace fs = std::filesystem;
using campaign::LoadOptions;

inline const std::map<std::string, std::string> k_vars = {{"WACAMP_API_KEY", "key-0123456789"},
                                                          {"WACAMP_ACCESS_TOKEN", "token-0123456789"},
                                                          {"HOST", "api.example.com"},
                                                          {"RATE", "2.5"},
                                                          {"HOME", "/home/tester"}};
inline const util::MapEnvironment k_env(k_vars);

// The smallest valid campaign: ten lines, so tests that append start on line 11.
inline const std::string k_minimal = R"(name: spring
service:
  base_url: https://api.example.com
  api_key: ${WACAMP_API_KEY}
recipients:
  file: samples/r.csv
  columns: {wa_id: phone, user_name: name}
message:
  type: text
  text: "Hi {{name}}"
)";

// A fresh folder holding samples/r.csv, where each test writes its campaign.yaml.
class Folder {
public:
    Folder() {
        static std::atomic<int> counter{0};
        m_dir = fs::temp_directory_path() /
                ("wacamp-campaign-file-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
        fs::create_directories(m_dir / "samples");
        put("samples/r.csv", "phone,name\n");
    }
    ~Folder() {
        std::error_code ec;
        fs::remove_all(m_dir, ec);
    }
    Folder(const Folder&) = delete;
    Folder& operator=(const Folder&) = delete;

    std::string put(const std::string& relative, const std::string& text) const {
        fs::create_directories((m_dir / relative).parent_path());
        std::ofstream(m_dir / relative, std::ios::binary) << text;
        return (m_dir / relative).string();
    }
    std::string campaign_path() const { return (m_dir / "campaign.yaml").string(); }
    // Loads `yaml` as campaign.yaml with k_env, but HOME in the folder (home/): a campaign's
    // default ledger is the folder's own, never a file shared between tests.
    util::Result<campaign::Campaign> load(const std::string& yaml, LoadOptions options = {}) const {
        put("campaign.yaml", yaml);
        auto vars = k_vars;
        vars["HOME"] = str("home");
        return campaign::load_campaign(campaign_path(), util::MapEnvironment(std::move(vars)), options);
    }
    // The problems of `yaml` as "\nLINE: message\n…" (the file name cut off), "" when it loads.
    std::string problems(const std::string& yaml, LoadOptions options = {}) const {
        auto result = load(yaml, options);
        if (result) {
            return "";
        }
        std::string out = "\n";
        const std::string prefix = campaign_path() + ":";
        std::istringstream lines(result.error().message);
        for (std::string line; std::getline(lines, line);) {
            out += (line.starts_with(prefix) ? line.substr(prefix.size()) : "NO FILE: " + line) + "\n";
        }
        return out;
    }
    std::string str(const std::string& relative) const { return (m_dir / relative).lexically_normal().string(); }

private:
    fs::path m_dir;
};

// `k_minimal` with `from` replaced by `to`.
inline std::string minimal_with(const std::string& from, const std::string& to) {
    std::string text = k_minimal;
    const size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

// A valid campaign whose service section's body is `body`, starting on line 5.
inline std::string with_service(const std::string& body) {
    return "name: a\nrecipients: {file: samples/r.csv, columns: {wa_id: a, user_name: b}}\n"
           "message: {type: text, text: hi}\nservice:\n" +
           body;
}

}  // namespace campaign_file_test

// Checks that `problems` holds the line `expected` ("12: rate.burst: …"), showing all on failure.
#define CHECK_PROBLEM(problems, expected) \
    CHECK_MESSAGE((problems).find("\n" + std::string(expected) + "\n") != std::string::npos, problems)
