#pragma once
// A template campaign checked against the template itself, before anything is sent: the
// template found by name (and language) in the account's list, APPROVED, and given exactly the
// variables its header and body take (SPEC "Template campaigns"). Pure: the list is fetched by
// the caller.

#include <string>
#include <vector>

#include "campaign/campaign.hpp"
#include "service/templates.hpp"
#include "util/result.hpp"

namespace runner {

// Finds the template `campaign.message.templated` names in `list` and fills in what the send
// needs of it (id, category, its header and body text). Fails, naming the template and the
// difference, when it is missing (or in another language), not APPROVED, named in several
// languages without message.language, or when the campaign's header or body does not give what
// the template takes. Button variables are not checked (the list does not show them).
util::Result<void> match_template(campaign::Campaign& campaign, const std::vector<service::TemplateInfo>& list);

}  // namespace runner
