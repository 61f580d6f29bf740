#pragma once
// The JSON bodies of the send-message and status-update requests, as the service's interface
// document shows them: exactly these keys and no others.

#include <string>
#include <vector>

namespace service {

enum class MessageKind { text, image };

// A rendered message for one recipient.
struct OutgoingMessage {
    std::string user_name;
    std::string wa_id;  // digits only, country code first
    MessageKind kind = MessageKind::text;
    std::string text;    // kind text
    std::string source;  // kind image
    std::string label;   // kind image; left out of the body when empty and !has_label
    bool has_label = false;
};

// Returns the send-message body: {"userName","wa_id","type","message":{…}}.
std::string send_message_body(const OutgoingMessage& message);

// Returns the status-update body: {"ids":[…],"status":…,"subscriberIds":[…]};
// `subscriberIds` is left out when `subscriber_ids` is empty.
std::string status_update_body(const std::vector<std::string>& ids, const std::string& status,
                               const std::vector<std::string>& subscriber_ids);

}  // namespace service
