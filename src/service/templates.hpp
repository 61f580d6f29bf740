#pragma once
// The template list: the service's records, and the few fields people look at.

#include <string>
#include <vector>

#include "util/result.hpp"

namespace service {

struct TemplateInfo {
    std::string id;  // the record's `_id`
    std::string name;
    std::string category;
    std::string language;
    std::string status;
    std::string updated_at;
    std::string header;                // configuration.header: "text", "image", "video", "document", "" (none), …
    std::string text_header;           // configuration.textHeader
    std::string body;                  // configuration.body, with {{1}} or {{name}} variables
    std::string footer;                // configuration.footer
    std::string media;                 // an image or video header's sample link (mediaHeader), when shown
    std::vector<std::string> buttons;  // the buttons' texts (quickReply, ctaButton), when shown
};

// Parses a templates response body ({"success": true, "data": [records]}). Fails when the
// body is not that shape; records missing fields give empty strings rather than failing.
util::Result<std::vector<TemplateInfo>> parse_templates(const std::string& body);

// Returns the `data` array of a templates response, pretty-printed JSON (for --json).
util::Result<std::string> templates_json(const std::string& body);

}  // namespace service
