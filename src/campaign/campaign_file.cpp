#include "campaign/campaign_file.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>

#include "campaign/campaign_file_sections.hpp"
#include "campaign/campaign_file_yaml.hpp"
#include "util/text.hpp"

namespace campaign {

namespace {

using detail::Need;

constexpr std::string_view k_top_keys[] = {"name",    "service", "recipients",  "message",  "template",
                                           "rate",    "retry",   "abort",       "schedule", "cleanup",
                                           "results", "account", "suppression", "pricing"};
// A campaign file is a page of settings; anything this big is a mistake (or an attack).
constexpr size_t k_max_file_size = 1 << 20;
constexpr size_t k_max_name_length = 100;

// Returns the whole file, or "FILE: cannot read: reason".
util::Result<std::string> read_file(const std::string& path) {
    // Opening a FIFO waits for a writer that may never come: refused before it is opened.
    std::error_code ec;
    if (const auto type = std::filesystem::status(path, ec).type();
        type == std::filesystem::file_type::fifo || type == std::filesystem::file_type::socket) {
        return util::fail(fmt::format("{}: cannot read: it is a {}, not a file", path,
                                      type == std::filesystem::file_type::fifo ? "FIFO" : "socket"));
    }
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
        return util::fail(
            fmt::format("{}: cannot read: larger than {} KiB; is this a campaign file?", path, k_max_file_size / 1024));
    }
    return data;
}

// Fails with "FILE:LINE: …" when `text` is not UTF-8 text: yaml-cpp would read UTF-16 and keep
// a NUL inside a quoted value (and send it), so neither gets that far.
util::Result<void> check_text(const std::string& path, const std::string& text) {
    constexpr std::string_view k_utf32_be("\0\0\xFE\xFF", 4);
    if (text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF") || text.starts_with(k_utf32_be)) {
        return util::fail(fmt::format("{}:1: the file is UTF-16 or UTF-32; save it as UTF-8", path));
    }
    if (const size_t nul = text.find('\0'); nul != std::string::npos) {
        const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(nul), '\n');
        return util::fail(fmt::format("{}:{}: the file holds a NUL byte; a campaign file is text", path, line + 1));
    }
    return {};
}

// Sees where each document of a YAML stream starts (its first node, as Node::Mark() says),
// and nothing else.
class DocumentStarts final : public YAML::EventHandler {
public:
    void OnDocumentStart(const YAML::Mark& mark) override {
        line = std::max(mark.line + 1, 1);
        m_in_node = false;
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override {
        node(mark);
    }
    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {
        node(mark);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
        node(mark);
    }
    void OnMapEnd() override {}

    int line = 1;  // where the current document starts

private:
    void node(const YAML::Mark& mark) {
        if (!m_in_node) {
            line = std::max(mark.line + 1, 1);
            m_in_node = true;
        }
    }
    bool m_in_node = false;
};

// Returns the line where a second document starts, or nothing when there is none. Not
// YAML::LoadAll: on some broken input (a lone ",") its parser stops advancing and LoadAll
// adds empty documents until memory runs out (yaml-cpp issue #1040, fixed after 0.8); here
// the parser is asked for two documents at most.
std::optional<int> second_document(const std::string& text) {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStarts starts;
    if (!parser.HandleNextDocument(starts) || !parser.HandleNextDocument(starts)) {
        return std::nullopt;
    }
    return starts.line;
}

// Returns whether `text` holds nothing but blank lines and comments.
bool only_comments(std::string_view text) {
    for (size_t start = 0; start < text.size();) {
        const size_t end = std::min(text.find('\n', start), text.size());
        const std::string_view line = text.substr(start, end - start);
        const size_t first = line.find_first_not_of(" \t\r");
        if (first != std::string_view::npos && line[first] != '#') {
            return false;
        }
        start = end + 1;
    }
    return true;
}

// Parses `text` into its one document, or returns "FILE:LINE: …".
util::Result<YAML::Node> parse(const std::string& path, const std::string& text) {
    TRY(check_text(path, text));
    YAML::Node document;
    std::optional<int> second;
    try {
        document = YAML::Load(text);
        second = document.IsNull() ? std::nullopt : second_document(text);
    } catch (const YAML::DeepRecursion& e) {
        // yaml-cpp's own message for this one is "bad file".
        return util::fail(fmt::format("{}:{}: nested too deeply", path, std::max(e.mark.line + 1, 1)));
    } catch (const YAML::Exception& e) {
        // Its messages may quote the offending character.
        const int line = std::max(e.mark.line + 1, 1);
        return util::fail(fmt::format("{}:{}: {}", path, line, util::printable(e.msg)));
    }
    if (document.IsNull()) {
        return util::fail(fmt::format("{}:1: {}; expected a mapping with name, service, recipients and message", path,
                                      only_comments(text) ? "the file is empty" : "no YAML value could be read"));
    }
    if (second) {
        return util::fail(fmt::format("{}:{}: a second YAML document; a campaign file holds one", path, *second));
    }
    if (!document.IsMap()) {
        const char* what = document.IsSequence() ? "a list" : "a single value";
        return util::fail(fmt::format("{}:{}: expected a mapping at the top level, got {}", path,
                                      std::max(document.Mark().line + 1, 1), what));
    }
    return document;
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
        root.problem("name", fmt::format("must be letters, digits, '-' or '_' (at most {}), got {}", k_max_name_length,
                                         detail::in_quotes(*name)));
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

// The variables wacamp reads secrets from whatever the campaign file says.
constexpr std::string_view k_secret_variables[] = {"WACAMP_API_KEY", "WACAMP_ACCESS_TOKEN", "WACAMP_METRICS_PUSH"};

// A message template holding a secret's value (`text: "key ${WACAMP_API_KEY}"`) would send it to
// every recipient and write it into the dry run's log: refused, like any unusable input. Refused
// too: a `${VAR}` naming a variable wacamp treats as a secret, whether or not this campaign uses
// it, and the value of any of those variables however it got there.
void refuse_secrets_in_message(detail::LoadContext& ctx, const Campaign& c) {
    for (const auto name : k_secret_variables) {
        ctx.secret_variables.insert(std::string(name));
        if (auto value = ctx.env.get(std::string(name))) {
            ctx.secrets.add(*value);
        }
    }
    std::set<std::string> refused;  // one problem a key
    const std::pair<const char*, const std::string*> fields[] = {
        {"message.text", &c.message.text},
        {"message.source", &c.message.source},
        {"message.label", c.message.label ? &*c.message.label : nullptr}};
    for (const auto& [key, value] : fields) {
        if (value == nullptr || ctx.secrets.apply(*value) == *value) {
            continue;
        }
        refused.insert(key);
        const auto line = c.lines.find(key);
        ctx.problem(line == c.lines.end() ? 1 : line->second,
                    fmt::format("{}: holds the value of a secret (service.api_key, service.access_token, a "
                                "service.headers value, a password of account.ledger or account.rate_store, or "
                                "WACAMP_METRICS_PUSH); it would be sent to every recipient",
                                key));
    }
    for (const auto& reference : ctx.references) {
        if (reference.key.starts_with("message.") && ctx.secret_variables.contains(reference.variable) &&
            refused.insert(reference.key).second) {
            ctx.problem(reference.line,
                        fmt::format("{}: names ${{{}}}, which holds a secret (an API key, token or password wacamp "
                                    "reads); it would be sent to every recipient",
                                    reference.key, reference.variable));
        }
    }
}

// A zone column means something only when the window follows each recipient's zone: refused
// otherwise, rather than silently ignored.
void check_zone_column(detail::LoadContext& ctx, const Campaign& c) {
    const auto& window = c.schedule.window;
    if (c.recipients.columns.time_zone.empty() || (window && window->per_recipient)) {
        return;
    }
    const auto line = c.lines.find("recipients.columns.time_zone");
    ctx.problem(line == c.lines.end() ? 1 : line->second,
                "recipients.columns.time_zone: only applies to schedule.window.timezone: recipient");
}

// Returns every problem of `ctx` as "FILE:LINE: what", in line order, each once.
std::vector<std::string> report(const detail::LoadContext& ctx) {
    auto problems = ctx.problems;
    std::stable_sort(problems.begin(), problems.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    // A mapping merged in several places would report its own problems once per use.
    problems.erase(std::unique(problems.begin(), problems.end()), problems.end());
    std::vector<std::string> out;
    for (const auto& [line, message] : problems) {
        out.push_back(fmt::format("{}:{}: {}", ctx.file, line, util::printable(ctx.secrets.apply(message))));
    }
    return out;
}

}  // namespace

util::Result<CampaignDraft> read_campaign(const std::string& path, const util::Environment& env, LoadOptions options) {
    TRY_ASSIGN(const std::string text, read_file(path));
    TRY_ASSIGN(const YAML::Node document, parse(path, text));
    CampaignDraft draft;
    Campaign& campaign = draft.campaign;
    campaign.file = path;
    detail::LoadContext ctx{path, std::filesystem::path(path).parent_path(), env, options, campaign.lines, {}, {}, {},
                            {}};
    try {
        const detail::Section root(ctx, document, "", 1, k_top_keys);
        read_name(root, campaign);
        // Cleanup first: it decides whether the access token and user_id column are required.
        detail::read_cleanup(root, campaign.cleanup);
        detail::read_service(root, campaign.cleanup, campaign.service);
        detail::read_recipients(root, campaign.cleanup, campaign.recipients);
        detail::read_message(root, campaign);
        detail::read_pricing(root, campaign);
        // The pacing before the account: a rate_store needs a rate to share.
        detail::read_pacing(root, campaign);
        // The account before the check: its URLs' passwords are secrets too.
        detail::read_account(root, campaign.service.base_url, campaign);
        refuse_secrets_in_message(ctx, campaign);
        detail::read_schedule(root, campaign.schedule);
        check_zone_column(ctx, campaign);
        read_results(root, campaign);
    } catch (const YAML::Exception& e) {
        // Reading checks each node's type first; this is a last guard, not a path we expect.
        ctx.problem(std::max(e.mark.line + 1, 1), e.msg);
    }
    draft.problems = report(ctx);
    return draft;
}

util::Result<Campaign> load_campaign(const std::string& path, const util::Environment& env, LoadOptions options) {
    TRY_ASSIGN(CampaignDraft draft, read_campaign(path, env, options));
    if (!draft.problems.empty()) {
        return util::fail(fmt::format("{}", fmt::join(draft.problems, "\n")));
    }
    return std::move(draft.campaign);
}

std::string where(const Campaign& c, const std::string& key) {
    for (std::string at = key; !at.empty();) {
        if (const auto found = c.lines.find(at); found != c.lines.end()) {
            return fmt::format("{}:{}", c.file, found->second);
        }
        const auto cut = at.find_last_of(".[");
        at.resize(cut == std::string::npos ? 0 : cut);
    }
    return c.file;
}

std::vector<std::string> secrets_of(const Campaign& c) {
    std::vector<std::string> out{c.service.api_key, c.service.access_token, c.account.ledger_password};
    for (const auto& [name, value] : c.service.headers) {
        out.push_back(value);
    }
    if (c.account.rate_store) {
        out.push_back(c.account.rate_store->password);
    }
    return out;
}

util::Redactor redactor_for(const Campaign& c) {
    util::Redactor redactor;
    for (auto& secret : secrets_of(c)) {
        redactor.add(std::move(secret));
    }
    return redactor;
}

}  // namespace campaign
