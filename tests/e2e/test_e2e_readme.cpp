// The README's Quick start, read from the README itself and run as written against the sandbox
// (its address in place of the real service's), in a copy of the sample campaigns and lists:
// what the README tells a newcomer to type works, and leaves the files where it says.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "fixtures.hpp"

using namespace e2e;

namespace {

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The ```sh blocks of the README's section headed `heading`, in order.
std::vector<std::string> sh_blocks(const std::string& readme, const std::string& heading) {
    std::vector<std::string> blocks;
    const auto start = readme.find("\n" + heading + "\n");
    if (start == std::string::npos) {
        return blocks;
    }
    const auto end = readme.find("\n## ", start + heading.size() + 2);
    const std::string section = readme.substr(start, end == std::string::npos ? std::string::npos : end - start);
    for (auto open = section.find("```sh\n"); open != std::string::npos; open = section.find("```sh\n", open)) {
        const auto body = open + 6;
        const auto close = section.find("```", body);
        blocks.push_back(section.substr(body, close - body));
        open = close + 3;
    }
    return blocks;
}

// `line` split into words as a shell would split this simple kind of line: blanks between
// words, "double quotes" around one, $NAME expanded from `env`, a comment after " #" dropped.
std::vector<std::string> words_of(const std::string& line, const EnvOverrides& env) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (!quoted && c == '#' && (i == 0 || line[i - 1] == ' ')) {
            break;
        }
        if (c == '"') {
            quoted = !quoted;
            in_word = true;
        } else if (c == '$') {
            std::size_t j = i + 1;
            while (j < line.size() && (std::isalnum(static_cast<unsigned char>(line[j])) || line[j] == '_')) {
                ++j;
            }
            const auto name = line.substr(i + 1, j - i - 1);
            word += env.contains(name) ? env.at(name) : "";
            in_word = true;
            i = j - 1;
        } else if (c == ' ' && !quoted) {
            if (in_word) {
                words.push_back(word);
            }
            word.clear();
            in_word = false;
        } else {
            word += c;
            in_word = true;
        }
    }
    if (in_word) {
        words.push_back(word);
    }
    return words;
}

// Takes the assignments of an `export A=1 B=2` line into `env`.
void take_exports(const std::vector<std::string>& words, EnvOverrides& env) {
    for (std::size_t i = 1; i < words.size(); ++i) {
        const auto eq = words[i].find('=');
        if (eq != std::string::npos) {
            env[words[i].substr(0, eq)] = words[i].substr(eq + 1);
        }
    }
}

}  // namespace

TEST_SUITE("e2e: readme") {
    TEST_CASE("the Quick start's commands run as written against the sandbox") {
        const std::filesystem::path source = WACAMP_SOURCE_DIR;
        const auto blocks = sh_blocks(read_text(source / "README.md"), "## Quick start");
        REQUIRE(blocks.size() == 2);  // the sandbox and its address first, then the commands

        Sandbox sandbox;
        TempDir dir;
        for (const char* folder : {"campaigns", "samples"}) {
            std::filesystem::copy(source / folder, dir.path() / folder, std::filesystem::copy_options::recursive);
        }
        // The README's lines in the order it gives them: its `wacamp sandbox` line is this test's
        // sandbox (listening where it could, not necessarily on the README's port), its exports
        // set the environment of every command after them, and every other `wacamp` line runs.
        EnvOverrides env{{"XDG_STATE_HOME", (dir.path() / "state").string()}};
        std::vector<std::vector<std::string>> commands;
        std::string readme_sandbox_url;
        bool sandbox_started = false;
        for (const auto& block : blocks) {
            std::istringstream lines(block);
            for (std::string line; std::getline(lines, line);) {
                auto words = words_of(line, env);
                if (words.empty()) {
                    continue;
                }
                if (words[0] == "export") {
                    take_exports(words, env);
                    if (env.contains("WACAMP_BASE_URL") && env["WACAMP_BASE_URL"] == readme_sandbox_url) {
                        env["WACAMP_BASE_URL"] = sandbox.url();
                    }
                } else if (words.size() > 1 && words[0] == "wacamp" && words[1] == "sandbox") {
                    const auto port = std::find(words.begin(), words.end(), "--port");
                    REQUIRE(port != words.end());
                    REQUIRE(port + 1 != words.end());
                    readme_sandbox_url = "http://127.0.0.1:" + *(port + 1);
                    sandbox_started = true;
                } else if (words[0] == "wacamp") {
                    CAPTURE(line);
                    CHECK_MESSAGE(sandbox_started, "the README runs this before it starts the sandbox");
                    CHECK_MESSAGE(env["WACAMP_BASE_URL"] == sandbox.url(),
                                  "the README runs this before it points WACAMP_BASE_URL at the sandbox");
                    commands.push_back(std::move(words));
                }
            }
        }
        // The commands run with the environment the README left.
        REQUIRE(commands.size() >= 6);
        for (auto& command : commands) {
            std::string shell = "cd " + e2e::quoted(dir.path().string()) + " && exec " + e2e::quoted(wacamp_path());
            for (std::size_t i = 1; i < command.size(); ++i) {
                shell += " " + e2e::quoted(command[i]);
            }
            auto r = run_program({"/bin/sh", "-c", shell}, env);
            CAPTURE(shell);
            CAPTURE(r.out);
            CAPTURE(r.err);
            CHECK(r.exit_code == 0);
        }
        // The limited run and the rest sent every usable row once; the log is where the README's
        // report found it.
        CHECK(once_each(delivered(sandbox), delivered(sandbox).size()).empty());
        CHECK(total_delivered(sandbox) > 5);
        CHECK(std::filesystem::exists(dir.path() / "results" / "sample-text.jsonl"));
        // The template campaign's rows went out as templates, one each.
        std::map<std::string, int> templates;
        for (const auto& j : sandbox.journal()) {
            if (j.value("path", "") == "/whatsapp-automation/wa/send-template" && j.value("outcome", "") == "ok") {
                ++templates[j.value("wa_id", "")];
            }
        }
        CHECK(once_each(templates, 4).empty());
        CHECK(std::filesystem::exists(dir.path() / "results" / "sample-template.jsonl"));
    }

    TEST_CASE("without results:, the log goes to results/NAME.jsonl beside the campaign file, as the docs say") {
        const std::filesystem::path source = WACAMP_SOURCE_DIR;
        const std::string commands = read_text(source / "docs" / "commands.md");
        CHECK(contains(commands, "default `results/NAME.jsonl` beside the campaign\nfile"));
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(2));
        edit_campaign(f, "results: results/e2e.jsonl\n", "");
        const auto nested = f.dir.path() / "nested";
        std::filesystem::create_directories(nested);
        std::filesystem::rename(f.campaign, nested / "campaign.yaml");
        std::filesystem::rename(f.csv, nested / "recipients.csv");
        auto r = f.wacamp({"run", (nested / "campaign.yaml").string(), "--no-progress"});
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(std::filesystem::exists(nested / "results" / "e2e.jsonl"));
    }
}
