#pragma once
// The JSON bodies of the send-message and status-update requests, as the service's interface
// document shows them: exactly these keys and no others.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "service/classify.hpp"

namespace service {

enum class MessageKind { text, image, template_message };

enum class TemplateHeader { none, text, image, video, document };

// What every row of a template campaign shares: the template and the shape of its params.
struct TemplateForm {
    std::string id;  // the template record's `_id` (24 hex digits), found in the template list
    TemplateHeader header = TemplateHeader::none;
    std::vector<std::string> body_names;  // named variables, in the campaign's order; empty: positional
    std::vector<int> button_indexes;      // the URL buttons the campaign fills, in its order
    std::string header_text;              // the template's textHeader, when known (for the limits)
    std::string body_text;                // the template's body, when known (for the limits)
    std::string category;                 // the template's category (MARKETING, UTILITY, …), when known
};

// A rendered message for one recipient.
struct OutgoingMessage {
    std::string user_name;
    std::string wa_id;  // digits only, country code first
    MessageKind kind = MessageKind::text;
    std::string text;    // kind text
    std::string source;  // kind image
    std::string label;   // kind image; left out of the body when empty and !has_label
    bool has_label = false;
    // kind template_message: the form (shared by every row) and this row's values
    std::shared_ptr<const TemplateForm> form;
    std::string header_value;               // the header's text or media link
    std::string filename;                   // a document header's file name; left out when empty
    std::vector<std::string> body_values;   // in the order of the campaign's body
    std::vector<std::string> button_texts;  // in the order of form->button_indexes
};

// Returns the send-message body: {"userName","wa_id","type","message":{…}}.
std::string send_message_body(const OutgoingMessage& message);

// Returns the send-template body of a kind template_message message:
// {"params":[components],"templateId","userName","wa_id"}, the components in Meta's Cloud API
// shape (header, body, then each button); `params` is [] for a template without variables.
std::string send_template_body(const OutgoingMessage& message);

// Returns the `params` array of send_template_body alone, byte for byte: what a dry run logs.
std::string template_params(const OutgoingMessage& message);

// Returns the body of the request that sends `message`: send_template_body for a template,
// send_message_body otherwise.
std::string request_body(const OutgoingMessage& message);

// Returns whether Meta's marketing limit (131049) applies to a message of `kind` (for a template,
// of `category`): to text and image messages and to templates of category MARKETING (any case),
// or of a category not known (empty: the check before sending was skipped).
MarketingHold marketing_hold_of(MessageKind kind, std::string_view category);
// Returns marketing_hold_of `message`'s kind and its template's category.
MarketingHold marketing_hold_of(const OutgoingMessage& message);

// Returns the status-update body: {"ids":[…],"status":…,"subscriberIds":[…]};
// `subscriberIds` is left out when `subscriber_ids` is empty.
std::string status_update_body(const std::vector<std::string>& ids, const std::string& status,
                               const std::vector<std::string>& subscriber_ids);

}  // namespace service
