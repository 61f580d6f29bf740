// The `service` and `recipients` sections of a campaign file.

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "campaign/campaign_file_sections.hpp"
#include "service/base_url.hpp"
#include "util/redact.hpp"
#include "util/text.hpp"

namespace campaign::detail {

namespace {

constexpr std::string_view k_service_keys[] = {"base_url", "api_key", "access_token",        "api_key_in", "headers",
                                               "timeout",  "ca_file", "allow_insecure_http", "http"};
constexpr std::string_view k_recipients_keys[] = {"file", "delimiter", "columns", "default_country", "dedupe"};
constexpr std::string_view k_columns_keys[] = {"wa_id", "user_name", "user_id", "subscriber_id", "time_zone"};
constexpr std::string_view k_key_places[] = {"header", "query"};
// service.http, in the order of service::HttpVersion. YAML reads 1.1 and 2 unquoted as the same
// scalars as "1.1" and "2", so both spellings work.
constexpr std::string_view k_http_versions[] = {"auto", "1.1", "2"};
// Headers wacamp sets itself; letting the file override them would break requests quietly.
constexpr std::string_view k_reserved_headers[] = {"apikey",         "authorization", "content-type",
                                                   "content-length", "user-agent",    "host"};

// Returns why the file at `path` cannot be read, or nothing when it can.
std::optional<std::string> unreadable(const std::string& path) {
    // Checked before opening: opening a FIFO waits for a writer, and a device such as
    // /dev/zero never ends (the CSV is read twice, once for its SHA-256, so it must be a file).
    std::error_code ec;
    const auto type = std::filesystem::status(path, ec).type();
    if (type == std::filesystem::file_type::directory) {
        return std::generic_category().message(EISDIR);
    }
    if (!ec && type != std::filesystem::file_type::regular) {
        return "not a regular file";
    }
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) {
        return std::generic_category().message(errno);
    }
    std::fclose(file);
    return std::nullopt;
}

// Resolves the path at `key` against the campaign's folder and checks that it can be read.
std::optional<std::string> readable_path(const Section& s, std::string_view key, Need need) {
    auto written = s.text(key, need);
    if (!written) {
        return std::nullopt;
    }
    std::string resolved = s.context().resolve(*written);
    if (auto why = unreadable(resolved)) {
        s.problem(key, fmt::format("cannot read {}: {}", in_quotes(*written), *why));
        return std::nullopt;
    }
    return resolved;
}

std::optional<std::string> base_url(const Section& s, service::InsecureHttp insecure) {
    auto url = s.text("base_url", Need::required);
    if (!url) {
        return std::nullopt;
    }
    auto checked = service::check_base_url(*url, insecure);
    if (!checked) {
        s.problem("base_url", checked.error().message);
        return std::nullopt;
    }
    return std::move(*checked);
}

// A key or token sent in a header or the query: visible ASCII only. A space would end the
// header's value early, and a byte past ASCII reaches the service as whatever charset it reads
// it in, so it could come back in a form the log's masking does not know. Under 8 characters it
// is refused too (util::k_min_credential). The value is never repeated.
std::optional<std::string> token_secret(const Section& s, std::string_view key, std::optional<std::string> value) {
    if (value && std::any_of(value->begin(), value->end(), [](char c) { return c <= 0x20 || c >= 0x7F; })) {
        s.problem(key, "must be visible ASCII characters only: no spaces, control or non-ASCII characters");
        return std::nullopt;
    }
    if (const std::string short_value = value ? util::credential_too_short(*value) : ""; !short_value.empty()) {
        s.problem(key, short_value);
        return std::nullopt;
    }
    return value;
}

void api_key_in(const Section& s, service::ApiKeyIn& out) {
    auto places = s.list("api_key_in");
    if (!places) {
        return;
    }
    if (places->empty()) {
        s.problem("api_key_in", "must name header, query or both");
        return;
    }
    service::ApiKeyIn chosen{.header = false, .query = false};
    size_t index = 0;
    for (const auto& place : *places) {
        auto which = pick(s.context(), place, fmt::format("{}[{}]", s.path_of("api_key_in"), index++), k_key_places);
        if (!which) {
            return;
        }
        (*which == 0 ? chosen.header : chosen.query) = true;
    }
    out = chosen;
}

bool is_token(std::string_view name) {
    constexpr std::string_view k_symbols = "!#$%&'*+-.^_`|~";
    return !name.empty() && std::all_of(name.begin(), name.end(), [&](unsigned char c) {
        return std::isalnum(c) || k_symbols.find(static_cast<char>(c)) != std::string_view::npos;
    });
}

void headers(const Section& s, std::vector<std::pair<std::string, std::string>>& out) {
    auto pairs = s.string_map("headers");
    if (!pairs) {
        return;
    }
    LoadContext& ctx = s.context();
    std::map<std::string, int> seen;  // lower-case name → line: header names ignore case
    for (const auto& [name, value] : *pairs) {
        const std::string path = s.path_of("headers") + "." + name.text;
        const std::string low = util::ascii_lower(name.text);
        ctx.hide(value.raw, value.text);  // a header may carry a token from the environment
        if (!is_token(name.text)) {
            ctx.problem(name.line, path + ": not a valid header name");
        } else if (std::find(std::begin(k_reserved_headers), std::end(k_reserved_headers), low) !=
                   std::end(k_reserved_headers)) {
            ctx.problem(name.line, path + ": wacamp sets this header itself");
        } else if (auto [pos, inserted] = seen.emplace(low, name.line); !inserted) {
            ctx.problem(name.line, fmt::format("{}: header given twice (also on line {})", path, pos->second));
        } else if (value.text.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
            // The value may hold a secret from the environment: never echo it.
            ctx.problem(value.line, path + ": value contains a line break or NUL character");
        } else {
            out.emplace_back(name.text, value.text);
        }
    }
}

char delimiter(const Section& s, const std::string& text) {
    if (text == "\\t" || text == "tab" || text == "\t") {
        return '\t';
    }
    if (text.size() != 1 || text == "\"" || text == "\r" || text == "\n") {
        s.problem("delimiter",
                  "must be one character other than a quote or line break (or \"\\t\"), got " + in_quotes(text));
        return ',';
    }
    return text[0];
}

}  // namespace

void read_service(const Section& root, const Cleanup& cleanup, service::ServiceConfig& out) {
    auto section = root.section("service", Need::required, k_service_keys);
    if (!section) {
        return;
    }
    const Section& s = *section;
    const SecretsPolicy policy = s.context().options.secrets;
    const bool needs_token = cleanup.delete_contacts;
    if (s.boolean("allow_insecure_http").value_or(false)) {
        out.insecure_http = service::InsecureHttp::allow;
    }
    if (auto url = base_url(s, out.insecure_http)) {
        out.base_url = std::move(*url);
    }
    if (auto key = token_secret(s, "api_key", s.secret("api_key", Need::required, policy))) {
        out.api_key = std::move(*key);
    }
    // Without cleanup the token is never used, so an unset variable there is no problem.
    if (auto token = token_secret(s, "access_token",
                                  s.secret("access_token", needs_token ? Need::required : Need::optional,
                                           needs_token ? policy : SecretsPolicy::optional))) {
        out.access_token = std::move(*token);
    }
    api_key_in(s, out.api_key_in);
    headers(s, out.headers);
    using std::chrono::minutes, std::chrono::seconds;
    if (auto timeout = s.duration("timeout", {seconds(1), minutes(10), "between 1s and 10m"})) {
        out.timeout = *timeout;
    }
    if (auto ca_file = readable_path(s, "ca_file", Need::optional)) {
        out.ca_file = std::move(*ca_file);
    }
    if (auto http = s.choice("http", k_http_versions)) {
        out.http = static_cast<service::HttpVersion>(*http);
        if (out.http == service::HttpVersion::http2 && util::starts_with_nocase(out.base_url, "http://")) {
            // Prior knowledge (h2c) is what "2" would mean there, and libcurl 7.88 fails it as soon
            // as requests share the connection ("Error in the HTTP2 framing layer").
            s.problem("http",
                      "\"2\" needs an https:// base_url (HTTP/2 is negotiated over TLS); use auto or "
                      "\"1.1\" for plain http://");
        }
    }
}

void read_recipients(const Section& root, const Cleanup& cleanup, Recipients& out) {
    auto section = root.section("recipients", Need::required, k_recipients_keys);
    if (!section) {
        return;
    }
    const Section& s = *section;
    if (auto file = readable_path(s, "file", Need::required)) {
        out.file = std::move(*file);
    }
    if (auto text = s.text("delimiter", Need::optional)) {
        out.delimiter = delimiter(s, *text);
    }
    if (auto columns = s.section("columns", Need::required, k_columns_keys)) {
        // Empty when not read (a problem of its own): no column is then looked for under its name.
        out.columns.wa_id = columns->text("wa_id", Need::required).value_or("");
        out.columns.user_name = columns->text("user_name", Need::required).value_or("");
        out.columns.user_id =
            columns->text("user_id", cleanup.delete_contacts ? Need::required : Need::optional).value_or("");
        out.columns.subscriber_id = columns->text("subscriber_id", Need::optional).value_or("");
        out.columns.time_zone = columns->text("time_zone", Need::optional).value_or("");
    }
    if (!s.has("columns")) {
        out.columns.wa_id.clear();
        out.columns.user_name.clear();
    }
    if (auto country = s.text("default_country", Need::optional)) {
        const bool letters = country->size() == 2 && std::isalpha(static_cast<unsigned char>((*country)[0])) &&
                             std::isalpha(static_cast<unsigned char>((*country)[1]));
        if (letters) {
            out.default_country = util::ascii_upper(*country);
        } else if (!country->empty()) {
            s.problem("default_country", "expected a two-letter country code such as IN, got " + in_quotes(*country));
        }
    }
    if (auto dedupe = s.boolean("dedupe")) {
        out.dedupe = *dedupe;
    }
}

}  // namespace campaign::detail
