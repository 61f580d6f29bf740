#pragma once
// What a response body tells: Meta's error object, the envelope's success flag, the message id.
// Read by simdjson (nlohmann's SAX parser where simdjson refuses the text) into one handler that
// keeps only the members that matter.

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
    // A message id where only a message id is found: data.messageId, messageId, messages[0].id
    std::string message_id;
    // A bare top-level `id`: a message id on a success, maybe a request id on an error
    std::string top_id;
};

// Returns the facts of `body`. A body that is no JSON object (HTML, cut short, an array, a
// number past a double's range) gives its own text as the error text. A member named twice
// counts as its last value; bytes that are not UTF-8 read as U+FFFD.
BodyFacts read_body(std::string_view body);

namespace detail {
// read_body with nlohmann's SAX parser alone: what read_body's simdjson reading must agree with,
// byte for byte (test_service_response_body and the fuzz harness fuzz_response_body compare them).
BodyFacts read_body_nlohmann(std::string_view body);
}  // namespace detail

}  // namespace service
