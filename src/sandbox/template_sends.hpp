#pragma once
// send-template's checks against the sandbox's own template records, as Meta makes them: the
// template must exist and be APPROVED (and not paused), and `params` must fill exactly the
// variables and the header the template has (docs/sandbox.md "send-template").

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "campaign/template_text.hpp"
#include "util/result.hpp"

namespace sandbox {

// Meta's template error codes the sandbox answers on its own.
inline constexpr int k_params_count_mismatch = 132000;
inline constexpr int k_template_missing = 132001;
inline constexpr int k_template_paused = 132015;
inline constexpr int k_template_disabled = 132016;
inline constexpr int k_params_problem = 132018;

// Why Meta refuses a template send: its code and what is wrong (the error's details).
struct TemplateRefusal {
    int code = 0;
    std::string details;
};

// The templates a sandbox serves, by `_id`. Immutable once built: safe from many threads.
class TemplateBook {
public:
    // Indexes `records` (the interface document's record shape; records without a string `_id`
    // are left out); sends of a template named in `paused` are answered 132015.
    TemplateBook(const nlohmann::ordered_json& records, const std::vector<std::string>& paused);

    // Returns why Meta would refuse to send template `template_id` with `params` (an array of
    // Cloud API components): 132001 for an unknown id or a status other than APPROVED (132015
    // PAUSED or paused, 132016 DISABLED); 132000 when a component's parameter count differs from
    // the template's variables; 132018 for a header missing, of the wrong kind or not wanted, and
    // for a component or parameter of the wrong shape. Nothing when Meta would send it.
    std::optional<TemplateRefusal> check(const std::string& template_id, const nlohmann::json& params) const;

private:
    struct Entry {
        std::string name;
        std::string status;
        std::string header;  // the record's `header`, lower case
        campaign::TemplateVariables header_variables;
        campaign::TemplateVariables body_variables;
    };
    std::map<std::string, Entry> m_by_id;
    std::set<std::string> m_paused;
};

// Returns `names` checked against `records`: fails naming the first that no record has as its
// configuration.name (for `--paused-template`).
util::Result<void> check_template_names(const nlohmann::ordered_json& records, const std::vector<std::string>& names,
                                        std::string_view option = "--paused-template");

}  // namespace sandbox
