#pragma once
// The service's checks on request bodies, as the interface document describes them and as
// docs/sandbox.md lists them. Pure: they return what is wrong, or nothing.

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace sandbox {

// Meta's limits on text and caption length, in characters (UTF-8 code points).
inline constexpr size_t k_max_text_chars = 4096;
inline constexpr size_t k_max_label_chars = 1024;

// Returns what is wrong with a send-message `body` (keys userName, wa_id, type, message and
// no others; the message shaped for its type), or nothing when the service would accept it.
std::optional<std::string> check_send_message(const nlohmann::json& body);

// Returns what is wrong with a send-template `body` (keys userName, wa_id, templateId and params
// and no others: templateId a non-empty string, params an array), or nothing. What params holds
// is checked against the template (template_sends.hpp).
std::optional<std::string> check_send_template(const nlohmann::json& body);

// Returns what is wrong with a status-update `body` (ids, status, optional subscriberIds and
// no others), or nothing when the service would accept it.
std::optional<std::string> check_status_update(const nlohmann::json& body);

// Returns true when `content_type` is application/json, with or without parameters
// ("application/json; charset=utf-8"); case-insensitive.
bool is_json_content_type(std::string_view content_type);

// Returns true when `wa_id` is 8 to 15 ASCII digits.
bool is_wa_id(std::string_view wa_id);

// Returns true when `url` is an absolute http(s) URL with a host and no space or control character.
bool is_http_url(std::string_view url);

}  // namespace sandbox
