#include "campaign/campaign_file.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <system_error>

#include "campaign/campaign_file_sections.hpp"
#include "campaign/campaign_file_yaml.hpp"

namespace campaign {

namespace {

using detail::Need;

constexpr std::string_view k_top_keys[] = {"name",  "service", "recipients", "message", "template", "rate",
                                           "retry", "abort",   "schedule",   "cleanup", "results"};
// A campaign file is a page of settings; anything this big is a mistake (or an attack).
constexpr size_t k_max_file_size = 1 << 20;
constexpr size_t k_max_name_length = 100;

// Returns the whole file, or "FILE: cannot read: reason".
util::Result<std::string> read_file(const std::string& path) {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) {
        return util::fail(fmt::format("{}: cannot read: {}", path, std::generic_category().message(errno)));
    }
    std::string data;
    char buffer[64 * 1024];
    size_t got = 0;
    while (data.size() <= k_max_file_size && (got = std::fread(buffer, 1, sizeof buffer, file)) > 0) {
        data.append(buffer, got);
    }
    const int error = std::ferror(file) != 0 ? errno : 0;  // a folder fails here, with EISDIR
    std::fclose(file);
    if (error != 0) {
        return util::fail(fmt::format("{}: cannot read: {}", path, std::generic_category().message(error)));
    }
    if (data.size() > k_max_file_size) {
        return util::fail(fmt::format("{}: cannot read: larger than {} KiB; is this a campaign file?", path,
                                      k_max_file_size / 1024));
    }
    return data;
}

// Parses `text` into its one document, or returns "FILE:LINE: …".
util::Result<YAML::Node> parse(const std::string& path, const std::string& text) {
    std::vector<YAML::Node> documents;
    try {
        documents = YAML::LoadAll(text);
    } catch (const YAML::DeepRecursion& e) {
        // yaml-cpp's own message for this one is "bad file".
        return util::fail(fmt::format("{}:{}: nested too deeply", path, std::max(e.mark.line + 1, 1)));
    } catch (const YAML::Exception& e) {
        return util::fail(fmt::format("{}:{}: {}", path, std::max(e.mark.line + 1, 1), e.msg));
    }
    if (documents.empty() || documents[0].IsNull()) {
        return util::fail(
            fmt::format("{}:1: the file is empty; expected a mapping with name, service, "
                        "recipients and message",
                        path));
    }
    if (documents.size() > 1) {
        const int line = std::max(documents[1].Mark().line + 1, 1);
        return util::fail(
            fmt::format("{}:{}: a second YAML document; a campaign file holds one", path, line));
    }
    if (!documents[0].IsMap()) {
        const char* what = documents[0].IsSequence() ? "a list" : "a single value";
        return util::fail(fmt::format("{}:{}: expected a mapping at the top level, got {}", path,
                                      std::max(documents[0].Mark().line + 1, 1), what));
    }
    return documents[0];
}

void read_name(const detail::Section& root, Campaign& out) {
    auto name = root.text("name", Need::required);
    if (!name) {
        return;
    }
    const bool plain = std::all_of(name->begin(), name->end(), [](unsigned char c) {
        return (c < 0x80 && std::isalnum(c)) || c == '-' || c == '_';
    });
    if (!plain || name->size() > k_max_name_length) {
        root.problem("name", fmt::format("must be letters, digits, '-' or '_' (at most {}), got {}",
                                         k_max_name_length, detail::in_quotes(*name)));
        return;
    }
    out.name = std::move(*name);
}

void read_results(const detail::Section& root, Campaign& out) {
    auto written = root.text("results");
    if (!written) {
        if (!out.name.empty()) {
            out.results = root.context().resolve("results/" + out.name + ".jsonl");
        }
        return;
    }
    const std::string resolved = root.context().resolve(*written);
    std::error_code ec;
    if (written->ends_with('/') || std::filesystem::is_directory(resolved, ec)) {
        root.problem("results", "must name a file, got the folder " + detail::in_quotes(*written));
        return;
    }
    out.results = resolved;
}

std::string report(const detail::LoadContext& ctx) {
    auto problems = ctx.problems;
    std::stable_sort(problems.begin(), problems.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    // A mapping merged in several places would report its own problems once per use.
    problems.erase(std::unique(problems.begin(), problems.end()), problems.end());
    std::string out;
    for (const auto& [line, message] : problems) {
        out +=
            fmt::format("{}{}:{}: {}", out.empty() ? "" : "\n", ctx.file, line, ctx.secrets.apply(message));
    }
    return out;
}

}  // namespace

util::Result<Campaign> load_campaign(const std::string& path, const util::Environment& env,
                                     LoadOptions options) {
    auto text = read_file(path);
    if (!text) {
        return text.error();
    }
    auto document = parse(path, *text);
    if (!document) {
        return document.error();
    }
    Campaign campaign;
    campaign.file = path;
    detail::LoadContext ctx{path, std::filesystem::path(path).parent_path(), env, options, campaign.lines, {},
                            {}};
    try {
        const detail::Section root(ctx, *document, "", 1, k_top_keys);
        read_name(root, campaign);
        // Cleanup first: it decides whether the access token and user_id column are required.
        detail::read_cleanup(root, campaign.cleanup);
        detail::read_service(root, campaign.cleanup, campaign.service);
        detail::read_recipients(root, campaign.cleanup, campaign.recipients);
        detail::read_message(root, campaign);
        detail::read_pacing(root, campaign);
        detail::read_schedule(root, campaign.schedule);
        read_results(root, campaign);
    } catch (const YAML::Exception& e) {
        // Reading checks each node's type first; this is a last guard, not a path we expect.
        ctx.problem(std::max(e.mark.line + 1, 1), e.msg);
    }
    if (!ctx.problems.empty()) {
        return util::fail(report(ctx));
    }
    return campaign;
}

}  // namespace campaign
