#pragma once
// The template list: the service's records, and the few fields people look at. Read in one pass
// by nlohmann's SAX parser, which hands over the fields wacamp uses and keeps no tree: a list of
// up to 16 MiB costs little more than its body (docs/decisions.md "The template list, read in full").

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "service/http.hpp"
#include "util/result.hpp"

namespace service {

// How deep a template list's JSON may nest (the list itself counts as one): a real record needs 6.
inline constexpr int k_max_template_depth = 64;

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

// What reading a template list hands over, element by element of its `data`, in order.
struct TemplateVisitor {
    std::function<void(const TemplateInfo&)> record{};  // each element that is an object
    // When set: each element as compact JSON on one line, its terminal-active characters escaped
    // (util::json_safe).
    std::function<void(std::string_view)> json{};
};

// Reads the template list `response` answered ({"success": true, "data": [records]}), handing
// each record to `visit` as it is read. Fails, saying why, when the body was cut at its cap (over
// k_max_body_cap), is not JSON, is not that shape, names `data` twice, or nests deeper than
// k_max_template_depth; records read before the fault were handed over already. Records missing
// fields give empty strings; a member named twice counts as its last value.
util::Result<void> read_templates(const HttpResponse& response, const TemplateVisitor& visit);

}  // namespace service
