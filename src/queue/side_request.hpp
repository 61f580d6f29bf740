#pragma once
// A request the send loop carries beside the sends, off their path: the template list read again
// while sending (runner::TemplateRecheck). It holds no slot and asks no admission step; the
// dispatcher starts it on the same transport when it is due and hands its answer back. At most
// one is in flight at a time.

#include <optional>

#include "queue/admission.hpp"
#include "service/http.hpp"

namespace queue {

class SideRequest {
public:
    virtual ~SideRequest() = default;
    // The request to start at `at`, when one is due; nothing otherwise. Asked every turn of the
    // send loop while none of its requests is in flight.
    virtual std::optional<service::HttpRequest> due(Instant at) = 0;
    // When the next request falls due, for the loop's wake-up; nothing while one is in flight.
    virtual std::optional<SteadyTime> next_due() const = 0;
    // The answer to the request `due` gave, at `at`.
    virtual void answered(const service::Completion& completion, Instant at) = 0;
};

}  // namespace queue
