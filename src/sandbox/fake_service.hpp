#pragma once
// The fake service itself, free of HTTP plumbing: a request in, an answer out, one journal
// line written. The server (server.hpp) only translates to and from cpp-httplib.

#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sandbox/auth.hpp"
#include "sandbox/faults.hpp"
#include "sandbox/journal.hpp"
#include "sandbox/options.hpp"
#include "sandbox/responses.hpp"
#include "sandbox/template_sends.hpp"
#include "util/clock.hpp"

namespace sandbox {

inline constexpr const char* k_templates_path = "/whatsapp-automation/wa/templates";
inline constexpr const char* k_send_message_path = "/whatsapp-automation/wa/send-message";
inline constexpr const char* k_send_template_path = "/whatsapp-automation/wa/send-template";
inline constexpr const char* k_status_update_path = "/inbox/users/status-update";

struct Incoming {
    std::string method;
    std::string path;          // without the query
    std::string content_type;  // empty: none
    PresentedKey key;
    std::optional<std::string> authorization;
    std::string body;
    ConnectionUse connection = ConnectionUse::first;
    int peer_port = 0;  // the client's port: which connection the request came on (0: not known)
};

// Whether the client gets an answer at all.
enum class Delivery { respond, drop };

struct Answer {
    Delivery delivery = Delivery::respond;
    int status = 200;
    std::string body;  // JSON
    std::vector<std::pair<std::string, std::string>> headers;
    std::chrono::milliseconds delay{0};  // to wait before answering or dropping
};

class FakeService {
public:
    // Serves `templates` (records; send-template checks against them) with `options`; journals to `journal` unless it
    // is null.
    FakeService(const SandboxOptions& options, const nlohmann::ordered_json& templates, Journal* journal);

    // Answers `request`, which arrived at `now` (steady, for rate limits) and `at` (wall
    // clock, for the journal), and journals it. Never throws for bad input.
    Answer handle(const Incoming& request, SteadyTime now, util::TimePoint at);
    // Returns how many requests ended with each outcome, indexed by Outcome.
    std::array<long, k_outcome_count> counts() const;

private:
    struct Reply;
    Reply templates(const Incoming& request);
    Reply send_message(const Incoming& request, const nlohmann::json* body, std::string_view body_error,
                       SteadyTime now);
    Reply send_template(const Incoming& request, const nlohmann::json* body, std::string_view body_error,
                        SteadyTime now);
    std::optional<Reply> check_send_access(const Incoming& request, const nlohmann::json* body,
                                           std::string_view body_error);
    Reply deliver(const std::string& wa_id, const Incoming& request, SteadyTime now);
    Reply status_update(const Incoming& request, const nlohmann::json* body, std::string_view body_error);
    Reply unauthorized(std::string_view details);
    Reply invalid(std::string_view what);
    Reply meta_error(int code, std::string_view details = {});
    std::optional<Reply> check_json_request(const Incoming& request, const nlohmann::json* body,
                                            std::string_view body_error);
    bool key_revoked();

    SandboxOptions m_options;
    nlohmann::ordered_json m_templates;     // the records, for --recategorize and --pause-template
    std::atomic<long> m_template_sends{0};  // template sends accepted
    std::string m_templates_body;
    std::string m_templates_user;
    TemplateBook m_book;
    Journal* m_journal;
    IdSource m_ids;
    std::mutex m_faults_mutex;
    FaultInjector m_faults;
    std::array<std::atomic<long>, k_outcome_count> m_counts{};
};

}  // namespace sandbox
