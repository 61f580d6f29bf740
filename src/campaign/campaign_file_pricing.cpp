// The `pricing` section of a campaign file: the rate card and its currency (docs/pricing.md).

#include <fmt/format.h>

#include "campaign/campaign_file_sections.hpp"
#include "campaign/rate_card.hpp"
#include "util/text.hpp"

namespace campaign::detail {

namespace {

constexpr std::string_view k_pricing_keys[] = {"rate_card", "currency", "budget"};
constexpr double k_max_budget = 1e12;
constexpr std::size_t k_max_currency = 16;

// Reports each of the card's `problems` (one a line, "CARD:LINE: …") at `line` of the campaign file.
void report_card(LoadContext& ctx, int line, const std::string& problems) {
    for (std::size_t at = 0; at < problems.size();) {
        const std::size_t end = std::min(problems.find('\n', at), problems.size());
        ctx.problem(line, "pricing.rate_card: " + problems.substr(at, end - at));
        at = end + 1;
    }
}

}  // namespace

void read_pricing(const Section& root, Campaign& out) {
    auto section = root.section("pricing", Need::optional, k_pricing_keys);
    Pricing& pricing = out.pricing;
    std::optional<std::string> given;
    if (section) {
        given = section->text("rate_card");
        if (section->has("budget")) {
            pricing.budget = section->positive_number("budget", k_max_budget);
        }
        if (auto currency = section->text("currency")) {
            if (currency->empty() || currency->size() > k_max_currency || util::printable(*currency) != *currency) {
                section->problem("currency",
                                 fmt::format("expected a short label like USD, got {}", in_quotes(*currency)));
            } else {
                pricing.currency = *currency;
            }
        }
    }
    // A text or image message is free: its card is read only when one is named.
    if (!given && out.message.type != MessageType::template_message) {
        return;
    }
    LoadContext& ctx = root.context();
    const int line = section ? section->line_of("rate_card") : root.line_of("message");
    if (given) {
        pricing.rate_card = ctx.resolve(*given);
        pricing.default_card = false;
    } else {
        std::vector<std::string> tried;
        auto found = default_rate_card_path(tried);
        if (!found) {
            ctx.problem(line, fmt::format("pricing.rate_card: the rate card installed with wacamp was not found "
                                          "(looked at {}); name a card with pricing.rate_card",
                                          fmt::join(tried, ", ")));
            return;
        }
        pricing.rate_card = *found;
    }
    auto card = RateCard::read(pricing.rate_card);
    if (!card) {
        report_card(ctx, line, card.error().message);
        return;
    }
    pricing.card = std::make_shared<const RateCard>(std::move(*card));
}

}  // namespace campaign::detail
