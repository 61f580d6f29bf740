#pragma once
// The three operations of the interface document as HTTP requests, with credentials placed
// as docs/sending.md "Retries" and docs/decisions.md "The wire" say. Pure: nothing here touches the network.

#include <string>
#include <string_view>

#include "service/config.hpp"
#include "service/http.hpp"

namespace service {

inline constexpr std::string_view k_templates_path = "/whatsapp-automation/wa/templates";
inline constexpr std::string_view k_send_message_path = "/whatsapp-automation/wa/send-message";
inline constexpr std::string_view k_send_template_path = "/whatsapp-automation/wa/send-template";
inline constexpr std::string_view k_status_update_path = "/inbox/users/status-update";

// Returns the User-Agent wacamp sends: "wacamp/VERSION".
std::string user_agent();

// GET templates, with the API key in header and/or query as configured; its answer's body is
// kept up to k_max_body_cap.
HttpRequest list_templates_request(const ServiceConfig& config);

// POST send-message carrying `body` (see messages.hpp).
HttpRequest send_message_request(const ServiceConfig& config, std::string body);

// POST send-template carrying `body` (send_template_body), authenticated as send-message.
HttpRequest send_template_request(const ServiceConfig& config, std::string body);

// PUT status-update carrying `body`, with the Bearer access token.
HttpRequest status_update_request(const ServiceConfig& config, std::string body);

// Returns `url` with the value of any apiKey query parameter replaced by "***".
std::string redacted_url(std::string_view url);

// Percent-encodes `text` for a URL query value (RFC 3986 unreserved characters kept).
std::string url_encode(std::string_view text);

}  // namespace service
