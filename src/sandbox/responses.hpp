#pragma once
// Response bodies in the shapes the service's clients read: the {"success", "message", ...}
// envelope, with Meta's error object for failures.

#include <atomic>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace sandbox {

// One Meta error: its code, its title and a longer explanation.
struct MetaError {
    int code;
    std::string_view title;    // "Rate limit hit"
    std::string_view details;  // for error_data.details
};

inline constexpr MetaError k_invalid_parameter{100, "Invalid parameter", ""};
inline constexpr MetaError k_invalid_token{190, "Invalid OAuth access token", ""};
inline constexpr MetaError k_rate_limit_hit{130429, "Rate limit hit",
                                            "Message throughput has been reached. Retry after the Retry-After delay."};
inline constexpr MetaError k_undeliverable{
    131026, "Message undeliverable",
    "Unable to deliver message. The recipient may not be a WhatsApp user or cannot receive it."};
inline constexpr MetaError k_spam_limit{
    131048, "Spam rate limit hit",
    "Message failed to send because there are restrictions on how many messages can be sent "
    "from this phone number."};
inline constexpr MetaError k_unknown_error{1, "An unknown error occurred", "Please retry your request later."};
inline constexpr MetaError k_service_unavailable{2, "Service temporarily unavailable",
                                                 "Please retry your request later."};

// Returns {"success": false, "message": `message`, "error": {"message": "(#CODE) `message`",
// "type": "OAuthException", "code", "error_data": {"details"}, "fbtrace_id"}}; `message`
// defaults to the error's title and `details` to the error's own.
std::string meta_error_body(const MetaError& error, std::string_view fbtrace_id, std::string_view message = {},
                            std::string_view details = {});

// Returns the success body of a send: data.messageId = `message_id`.
std::string send_ok_body(std::string_view message_id);

// Returns the success body of a status update: data.modifiedCount = `modified`.
std::string status_update_ok_body(long modified);

// Returns {"success": true, "data": `records`}.
std::string templates_body(const nlohmann::ordered_json& records);

// Returns the 404 body for a path or method the service does not have.
std::string not_found_body(std::string_view method, std::string_view path);

// Hands out identifiers: message ids unique within a run and across runs (a random
// instance prefix), and fbtrace ids. Thread-safe.
class IdSource {
public:
    IdSource();
    // Returns "wamid.HBgM" followed by 28 upper-case hex digits.
    std::string next_message_id();
    // Returns an 11-character id like Meta's fbtrace_id.
    std::string next_trace_id();

private:
    std::uint64_t m_instance;
    std::atomic<std::uint64_t> m_counter{0};
};

}  // namespace sandbox
