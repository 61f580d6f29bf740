#include "cli/campaign_check.hpp"

#include <fmt/format.h>

#include "campaign/rate_card.hpp"
#include "campaign/recipients.hpp"
#include "cli/run_common.hpp"
#include "queue/dispatcher.hpp"
#include "runner/preflight.hpp"
#include "service/base_url.hpp"
#include "service/curl_transport.hpp"
#include "util/clock.hpp"
#include "util/env.hpp"
#include "util/text.hpp"

namespace cli {

CheckedCampaign check_campaign_or_report(const std::string& path, campaign::SecretsPolicy secrets, TemplateList list,
                                         Output& out) {
    util::ProcessEnvironment env;
    auto draft = campaign::read_campaign(path, env, {.secrets = secrets});
    if (!draft) {
        report_unusable(path, {draft.error().message}, out);
        return {std::nullopt, k_exit_bad_input};
    }
    campaign::Campaign& c = draft->campaign;
    for (const auto& secret : campaign::secrets_of(c)) {
        out.add_secret(secret);
    }
    auto problems = std::move(draft->problems);
    if (auto columns = campaign::RecipientStream::check_columns(c)) {
        problems.push_back(std::move(*columns));
    }
    // A template is looked for only where the file says which, and how to ask: the problems
    // already found say why not, when it does not.
    const bool askable = !c.message.templated.name.empty() && !c.service.base_url.empty() &&
                         (problems.empty() || !c.service.api_key.empty());
    if (c.message.type == campaign::MessageType::template_message && askable) {
        if (auto refused = check_template(c, list, out)) {
            if (problems.empty() && refused->code != k_exit_bad_input) {
                out.error(refused->message, refused->code);
                return {std::nullopt, refused->code};
            }
            problems.push_back(std::move(refused->message));
        }
    }
    if (!problems.empty()) {
        report_unusable(path, problems, out);
        return {std::nullopt, k_exit_bad_input};
    }
    if (!adopt_campaign(c, out)) {
        return {std::nullopt, k_exit_bad_input};
    }
    if (c.pricing.card) {
        const util::SystemClock clock;
        if (auto stale = campaign::stale_card_warning(*c.pricing.card, clock.wall_now(), "pricing.rate_card")) {
            out.warning(*stale);
        }
    }
    return {std::move(c), k_exit_done};
}

std::optional<TemplateRefusal> check_template(campaign::Campaign& c, TemplateList list, Output& out) {
    if (c.message.type != campaign::MessageType::template_message) {
        return std::nullopt;
    }
    if (list == TemplateList::offline) {
        out.notice(
            fmt::format("template \"{}\" not checked (--offline): its variables, status and id are not "
                        "known; a run checks them before it sends",
                        c.message.templated.name));
        return std::nullopt;
    }
    if (c.service.api_key.empty()) {
        return TemplateRefusal{k_exit_bad_input,
                               fmt::format("{}: a template campaign is checked against the account's template "
                                           "list, which needs service.api_key; set it, or add --offline to skip the "
                                           "check",
                                           campaign::where(c, "service.api_key"))};
    }
    service::CurlTransport transport(
        {.ca_file = c.service.ca_file, .max_connections = 2, .max_host_connections = 0, .http = c.service.http});
    auto resolved = runner::resolve_template(c, transport);
    if (!resolved) {
        return TemplateRefusal{k_exit_bad_input, resolved.error().message};
    }
    if (resolved->unreachable) {
        return TemplateRefusal{k_exit_stopped, fmt::format("{}: {}; nothing was sent", c.file, resolved->message)};
    }
    if (resolved->stop) {
        return TemplateRefusal{k_exit_stopped, fmt::format("stopped before sending: {} ({})", resolved->message,
                                                           queue::to_string(*resolved->stop))};
    }
    if (!resolved->note.empty()) {
        out.warning(resolved->note);
    }
    const std::string listed = util::printable(c.message.templated.category);
    const std::string listed_upper = util::ascii_upper(listed);
    if (const auto& pin = c.message.templated.pinned_category; !pin.empty() && listed_upper != pin) {
        return TemplateRefusal{
            k_exit_bad_input,
            fmt::format("{}: template \"{}\" is {} in the template list, not {} (message.category): Meta may have "
                        "re-categorised it, and its price with it; nothing was sent. To send it at the new category's "
                        "price, set message.category: {}",
                        campaign::where(c, "message.category"), c.message.templated.name, listed, pin, listed_upper)};
    }
    out.notice(fmt::format("template \"{}\" ({}, {}): APPROVED, its variables match the campaign's",
                           c.message.templated.name, c.message.templated.category,
                           c.message.templated.language.empty() ? "its only language" : c.message.templated.language));
    return std::nullopt;
}

bool adopt_campaign(const campaign::Campaign& c, Output& out) {
    for (const auto& secret : campaign::secrets_of(c)) {
        out.add_secret(secret);
    }
    out.set_campaign(c.name, c.account.ledger ? c.account.name : std::string());
    if (log_file_clashes(c, out)) {
        return false;
    }
    if (service::insecure_http(c.service.base_url)) {
        out.warning(service::insecure_http_warning(c.service.base_url));  // on every run, as promised
    }
    return true;
}

void report_unusable(const std::string& path, const std::vector<std::string>& problems, Output& out) {
    // Text: every problem as it is, then what it means; json: one error object.
    const std::string text = fmt::format("{}", fmt::join(problems, "\n"));
    out.error(text, k_exit_bad_input,
              fmt::format("{}\nwacamp: error: {} is not usable; nothing was sent\n", text, path));
}

}  // namespace cli
