#pragma once
// The template records the sandbox lists, in the interface document's record shape.
// Ordered JSON: records keep their fields in the order they were written.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace sandbox {

// The `_user` of the built-in records (also sent as the `_user` response header).
inline constexpr const char* k_builtin_user = "64b7f0c2a1e4d5f6a7b8c9d0";

// Returns the built-in records: appointment_update (APPOINTMENT_UPDATE, en, APPROVED),
// spring_offer (PENDING, image header), payment_reminder (REJECTED), spring_sale (MARKETING,
// APPROVED, image header, two body variables), thank_you (APPROVED, no variables) and
// order_shipped (APPROVED, in en and in es).
nlohmann::ordered_json builtin_templates();

// Reads records from `path`: a JSON array of records, or an object whose `data` is one.
// Fails naming the file (and the byte offset of a syntax error).
util::Result<nlohmann::ordered_json> load_templates(const std::string& path);

// Returns the `_user` to send as a response header: the first record's, else the built-in.
std::string templates_user(const nlohmann::ordered_json& records);

struct TemplateChange;

// Reads "NAME=CATEGORY@N" (`recategorize`) or "NAME@N" (a pause). Fails naming the option and
// what is wrong: no name, no '@', N not a whole number of 0 or more, an empty category.
enum class ChangeKind { recategorize, pause };
util::Result<TemplateChange> parse_template_change(std::string_view text, ChangeKind kind);

// `records` as the list shows them once `accepted` template sends went through: each change
// due (after <= accepted) applied to the records named by it. Unchanged when none is due.
nlohmann::ordered_json changed_templates(const nlohmann::ordered_json& records,
                                         const std::vector<TemplateChange>& changes, long accepted);

}  // namespace sandbox
