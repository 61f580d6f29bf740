#include "runner/survey.hpp"

namespace runner {

PlanInputs Survey::plan_inputs(util::TimePoint now, AccountBook* book) {
    return {.messages = to_send,
            .messaged_day = recent.day,
            .messaged_week = recent.week,
            .now = now,
            .book = book,
            .zones = zones && zones->size() == to_send ? &*zones : nullptr};
}

util::Result<Survey> survey(const campaign::Campaign& c, ScreenedRows& rows, const util::Clock& clock,
                            const SurveyRow& each) {
    Survey out;
    if (c.schedule.window && c.schedule.window->per_recipient) {
        out.zones.emplace(*c.schedule.window);
    }
    TRY_ASSIGN(auto cost, campaign::CostTally::create(c));
    campaign::Recipient r;
    Screening screening;
    auto more = rows.next(r, screening);
    for (; more && *more; more = rows.next(r, screening)) {
        const bool to_send = r.verdict == campaign::Verdict::ok && screening.cause == results::Cause::none;
        if (to_send) {
            ++out.to_send;
            out.recent.add(screening, clock.wall_now());
            cost.add(r.message.wa_id);
            if (out.zones && !r.zone.name.empty()) {
                TRY(out.zones->add(r.zone.name));
            }
        }
        TRY(each(r, screening, to_send));
    }
    if (!more) {
        out.unread = more.error();
    }
    out.cost = cost.estimate();
    return out;
}

}  // namespace runner
