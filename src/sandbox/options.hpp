#pragma once
// What `wacamp sandbox` serves and which faults it injects. Filled by cli/sandbox.cpp.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sandbox {

// Where the API-key operations read the key.
enum class KeyIn {
    either,  // the header or the query parameter (every one present must be right)
    header,  // the `apiKey` header only
    query,   // the `apiKey` query parameter only
    both,    // both, and both right
};

// How a throttled send is answered.
enum class RateLimitStyle {
    http429,  // HTTP 429, Meta code 130429
    meta400,  // HTTP 400, Meta code 130429 (as Meta sometimes answers)
};

// `--meta-error WA_ID=CODE[xN]`: sends to `wa_id` are answered Meta's error `code`, the first
// `times` of them (then they succeed), or always.
struct MetaErrorRule {
    std::string wa_id;
    int code = 0;
    std::optional<int> times;  // nothing: always
    bool operator==(const MetaErrorRule&) const = default;
};

struct FaultOptions {
    int rate_limit = 0;  // accepted sends per sliding second; 0: unlimited
    RateLimitStyle rate_limit_style = RateLimitStyle::http429;
    int retry_after_s = 1;    // the Retry-After of a throttled send
    double error_rate = 0.0;  // share of sends answered 500/503
    double drop_rate = 0.0;   // share of sends whose connection is closed
    // Share of accepted sends arriving on a reused kept-alive connection that are delivered and
    // then get no answer: the connection is closed instead (what libcurl would resend alone).
    double lost_answer_rate = 0.0;
    std::vector<std::string> reject_numbers;      // always answered 131026
    std::vector<MetaErrorRule> meta_errors;       // at most one per wa_id
    std::optional<long> auth_fail_after;          // after N accepted sends: every request 401
    std::optional<long> spam_limit_after;         // after N accepted sends: sends get 131048
    std::chrono::milliseconds latency{0};         // added before answering any request
    std::chrono::milliseconds latency_jitter{0};  // plus a uniform share of this
    std::uint64_t seed = 0;                       // drives every random decision
};

// `--tls`: serve HTTPS with the certificate and key in these PEM files, or (both empty) with a
// certificate authority and a server certificate made at start.
struct TlsOptions {
    std::string cert_path;
    std::string key_path;
};

// --recategorize NAME=CATEGORY@N and --pause-template NAME@N: once N template sends were
// accepted, the template list shows every record named `name` with `category` (or, with an empty
// category, status PAUSED): Meta re-categorising or pausing a template under a running campaign.
struct TemplateChange {
    std::string name;
    std::string category;  // empty: paused
    long after = 0;
};

struct SandboxOptions {
    int port = 0;                // 0: a free port
    std::string journal_path;    // empty: no journal
    std::string templates_path;  // empty: the built-in templates
    std::string api_key = "sandbox-key";
    std::string access_token = "sandbox-token";
    KeyIn require_key_in = KeyIn::either;
    int threads = 288;  // httplib holds one thread per open connection: auto's cap of 256, and room
    // Nothing: plain HTTP.
    std::optional<TlsOptions> tls;
    FaultOptions faults;
    std::vector<std::string> paused_templates;     // names whose sends are answered 132015
    std::vector<TemplateChange> template_changes;  // the list changes under a campaign
};

}  // namespace sandbox
