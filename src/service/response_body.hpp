#pragma once
// What a response body tells: Meta's error object, the envelope's success flag, the message id.
// Read by a pull scanner when the body is ordinary, by a DOM otherwise; both give the same facts.

#include <optional>
#include <string>
#include <string_view>

namespace service {

// What a (possibly non-JSON) body tells us. `error_text` is on one line and clipped.
struct BodyFacts {
    bool is_json = false;
    bool success_false = false;
    std::optional<long long> error_code;
    std::string error_text;
    std::string message_id;
};

// Returns the facts of `body` read with the pull scanner, or nothing for anything unusual
// (not an object, odd types, bad JSON), which read_body_dom decides.
std::optional<BodyFacts> scan_body(std::string_view body);

// Returns the facts of `body` read with a DOM parse; a body that is no JSON object gives its
// text as the error text.
BodyFacts read_body_dom(const std::string& body);

// Returns the facts of `body`: scanned when it can be, else from the DOM.
BodyFacts read_body(const std::string& body);

// Returns `text` on one line (line breaks and tabs as spaces), clipped at 300 bytes.
std::string clip_error_text(std::string text);

}  // namespace service
