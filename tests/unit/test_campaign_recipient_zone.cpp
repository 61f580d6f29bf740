#include <doctest/doctest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "campaign/campaign.hpp"
#include "campaign/phone.hpp"
#include "campaign/recipient_zone.hpp"
#include "campaign/recipients.hpp"
#include "campaign_file_fixture.hpp"
#include "fakes.hpp"

using campaign::RecipientZone;
using campaign::RecipientZones;
using campaign::RegionZones;
using campaign::ZoneSource;

namespace {

const util::TimePoint k_now{std::chrono::seconds(1'795'780'800)};  // 2026-11-27T12:00:00Z

RegionZones system_zones() {
    auto zones = RegionZones::load(std::string(campaign::k_zone_table), k_now);
    REQUIRE_MESSAGE(zones, (zones ? "" : zones.error().message));
    return std::move(*zones);
}

std::string single(RegionZones& zones, const std::string& region) {
    const std::string* zone = zones.single_zone(region);
    return zone == nullptr ? "(none)" : *zone;
}

// A synthetic zone1970.tab: XA's two zones keep UTC+5 all year, XB's zone centred in it is
// listed after one it shares with XA, XC's zones differ by an hour, XD's agree in winter only,
// XE's zone is not in tzdata.
const char* const k_table =
    "# comment\n"
    "XA,XB\t+4120+06918\tAsia/Tashkent\n"
    "XA\t+3830+06848\tAsia/Dushanbe\tsecond\n"
    "XB\t+2452+06703\tAsia/Karachi\n"
    "XC\t+0000+00000\tEtc/GMT-5\n"
    "XC\t+0000+00000\tEtc/GMT-6\n"
    "XD\t+5230+01322\tEurope/Berlin\n"
    "XD\t+0627+00324\tAfrica/Lagos\n"
    "XE\t+0000+00000\tMars/Olympus\n";

// A campaign whose window follows each recipient, falling back to Asia/Kolkata.
campaign::Campaign per_recipient_campaign() {
    campaign::Campaign c;
    campaign::Window window;
    window.per_recipient = true;
    window.fallback_timezone = "Asia/Kolkata";
    c.schedule.window = window;
    c.recipients.columns.time_zone = "tz";
    return c;
}

RecipientZones zones_for(const campaign::Campaign& c) {
    auto zones = RecipientZones::create(c, 2, {.now = k_now});
    REQUIRE_MESSAGE(zones, (zones ? "" : zones.error().message));
    return std::move(*zones);
}

campaign::PhoneNormalizer phones() {
    auto p = campaign::PhoneNormalizer::create("");
    REQUIRE(p);
    return std::move(*p);
}

// Reads the next row of `stream` into `r`: false at the end; a failure fails the test.
bool next_row(campaign::RecipientStream& stream, campaign::Recipient& r) {
    auto more = stream.next(r);
    REQUIRE_MESSAGE(more, (more ? "" : more.error().message));
    return *more;
}

}  // namespace

TEST_SUITE("campaign::RegionZones") {
    TEST_CASE("zone: Germany and India keep one civil time; large countries with several do not") {
        RegionZones zones = system_zones();
        CHECK(single(zones, "DE") == "Europe/Berlin");  // Büsingen's Europe/Zurich keeps Berlin's time
        CHECK(single(zones, "IN") == "Asia/Kolkata");
        CHECK(single(zones, "JM") == "America/Jamaica");
        for (const std::string region : {"US", "ES", "BR", "AU", "RU", "MX", "CA", "CN"}) {
            CHECK_MESSAGE(single(zones, region) == "(none)", region);
        }
        CHECK(single(zones, "ZZ") == "(none)");
        CHECK(single(zones, "") == "(none)");
    }

    TEST_CASE("zone: several zones with the same offset all year are one civil time; the first answers") {
        fakes::TempDir temp;
        const auto path = temp.file("zone1970.tab");
        std::ofstream(path) << k_table;
        auto zones = RegionZones::load(path, k_now);
        REQUIRE(zones);
        CHECK(single(*zones, "XA") == "Asia/Tashkent");
        CHECK(single(*zones, "XB") == "Asia/Karachi");  // the zone whose line names XB first
        CHECK(single(*zones, "XC") == "(none)");
        CHECK(single(*zones, "XD") == "(none)");  // the same offset now, not in the summer
        CHECK(single(*zones, "XE") == "(none)");
    }

    TEST_CASE("zone: a table that cannot be read, or holds no zone, fails naming the file") {
        fakes::TempDir temp;
        auto missing = RegionZones::load(temp.file("none.tab"), k_now);
        REQUIRE_FALSE(missing);
        CHECK(missing.error().message.starts_with(temp.file("none.tab") + ": cannot read"));
        const auto empty = temp.file("empty.tab");
        std::ofstream(empty) << "# only comments\n";
        auto none = RegionZones::load(empty, k_now);
        REQUIRE_FALSE(none);
        CHECK(none.error().message == empty + ": holds no time zone of any country");
    }
}

TEST_SUITE("campaign::RecipientZones") {
    TEST_CASE("zone: the column wins over the number, a blank column does not") {
        auto zones = zones_for(per_recipient_campaign());
        const auto p = phones();
        auto column = zones.resolve("Europe/Paris", "4915123456789", p);
        REQUIRE(column);
        CHECK(column->name == "Europe/Paris");
        CHECK(column->source == ZoneSource::column);
        auto blank = zones.resolve("  ", "4915123456789", p);
        REQUIRE(blank);
        CHECK(blank->name == "Europe/Berlin");
        CHECK(blank->source == ZoneSource::number);
    }

    TEST_CASE("zone: the number's own region, not its country code's main one, tells the zone") {
        auto zones = zones_for(per_recipient_campaign());
        const auto p = phones();
        auto jamaica = zones.resolve("", "18765550123", p);  // +1 876: Jamaica, not the United States
        REQUIRE(jamaica);
        CHECK(jamaica->name == "America/Jamaica");
        CHECK(jamaica->source == ZoneSource::number);
        auto india = zones.resolve("", "919812345678", p);
        REQUIRE(india);
        CHECK(india->name == "Asia/Kolkata");
        CHECK(india->source == ZoneSource::number);
    }

    TEST_CASE("zone: a country of several civil times, or no number, takes the fallback") {
        auto zones = zones_for(per_recipient_campaign());
        const auto p = phones();
        for (const std::string wa_id : {"12125550123", "5511987654321", ""}) {
            auto zone = zones.resolve("", wa_id, p);
            REQUIRE(zone);
            CHECK_MESSAGE(zone->name == "Asia/Kolkata", wa_id);
            CHECK_MESSAGE(zone->source == ZoneSource::fallback, wa_id);
        }
    }

    TEST_CASE("zone: a name tzdata does not have fails, naming the column and the value, made printable") {
        auto zones = zones_for(per_recipient_campaign());
        const auto p = phones();
        auto bad = zones.resolve("Mars/Olympus", "919812345678", p);
        REQUIRE_FALSE(bad);
        CHECK(bad.error().message ==
              "column \"tz\": \"Mars/Olympus\" is not a time zone (expected an IANA name like Asia/Kolkata)");
        auto control = zones.resolve("Asia/\x1b[31mKolkata", "919812345678", p);
        REQUIRE_FALSE(control);
        CHECK(control.error().message.find('\x1b') == std::string::npos);
        CHECK_FALSE(zones.resolve("../../etc/passwd", "", p));
    }

    TEST_CASE("zone: localtime, posixrules and Factory are files of tzdata, not a recipient's zone") {
        auto zones = zones_for(per_recipient_campaign());
        const auto p = phones();
        for (const std::string name : {"localtime", "posixrules", "Factory", "factory", " Factory "}) {
            auto bad = zones.resolve(name, "919812345678", p);
            CHECK_MESSAGE(!bad, name);
            if (!bad) {
                CHECK(bad.error().message.find("is not a time zone") != std::string::npos);
            }
        }
        CHECK(zones.resolve("Asia/Kolkata", "919812345678", p));
    }

    TEST_CASE("zone: without a window per recipient every row has no zone") {
        campaign::Campaign c;
        auto zones = RecipientZones::create(c, std::nullopt, {.now = k_now});
        REQUIRE(zones);
        auto none = zones->resolve("Mars/Olympus", "919812345678", phones());
        REQUIRE(none);
        CHECK(none->name.empty());
        CHECK(none->source == ZoneSource::none);
    }

    TEST_CASE("zone: an unreadable zone table fails the campaign's zones, naming the key") {
        fakes::TempDir temp;
        auto zones =
            RecipientZones::create(per_recipient_campaign(), 2, {.table = temp.file("none.tab"), .now = k_now});
        REQUIRE_FALSE(zones);
        CHECK(zones.error().message.starts_with("schedule.window.timezone: recipient: " + temp.file("none.tab") +
                                                ": cannot read"));
    }
}

TEST_SUITE("campaign::RecipientStream zones") {
    // The minimal campaign with a `tz` column and a window per recipient.
    std::string zone_campaign() {
        return campaign_file_test::minimal_with("user_name: name}", "user_name: name, time_zone: tz}") +
               "schedule: {window: {timezone: recipient, fallback_timezone: America/New_York}}\n";
    }

    TEST_CASE("zone: each row's zone and its source reach the Recipient; a bad name is invalid") {
        campaign_file_test::Folder folder;
        folder.put("samples/r.csv",
                   "phone,name,tz\n"
                   "+919812345678,Asha,\n"
                   "+4915123456789,Jonas,America/Chicago\n"
                   "+12125550123,Ann,\n"
                   "+919812345679,Ravi,Asia/Kolkatta\n"
                   "bad,Nobody,Europe/Paris\n");
        auto c = folder.load(zone_campaign());
        REQUIRE_MESSAGE(c, (c ? "" : c.error().message));
        auto stream = campaign::RecipientStream::open(*c, {}, {.zones = {.now = k_now}});
        REQUIRE_MESSAGE(stream, (stream ? "" : stream.error().message));
        CHECK(stream->survey().invalid == 2);  // the first pass counts the bad zone too
        std::vector<campaign::Recipient> rows;
        for (campaign::Recipient r; next_row(*stream, r);) {
            rows.push_back(r);
        }
        REQUIRE(rows.size() == 5);
        CHECK(rows[0].zone.name == "Asia/Kolkata");
        CHECK(rows[0].zone.source == ZoneSource::number);
        CHECK(rows[1].zone.name == "America/Chicago");
        CHECK(rows[1].zone.source == ZoneSource::column);
        CHECK(rows[2].zone.name == "America/New_York");
        CHECK(rows[2].zone.source == ZoneSource::fallback);
        CHECK(rows[3].verdict == campaign::Verdict::invalid);
        CHECK(rows[3].reason ==
              "column \"tz\": \"Asia/Kolkatta\" is not a time zone (expected an IANA name like "
              "Asia/Kolkata)");
        CHECK(rows[3].zone.name.empty());
        CHECK(rows[4].verdict == campaign::Verdict::invalid);
        CHECK(rows[4].zone.source == ZoneSource::none);
    }

    TEST_CASE("zone: a time_zone column missing from the header fails the stream, naming the key") {
        campaign_file_test::Folder folder;
        folder.put("samples/r.csv", "phone,name\n+919812345678,Asha\n");
        auto c = folder.load(zone_campaign());
        REQUIRE(c);
        auto stream = campaign::RecipientStream::open(*c, {}, {.zones = {.now = k_now}});
        REQUIRE_FALSE(stream);
        CHECK(stream.error().message == folder.campaign_path() +
                                            ":7: recipients.columns.time_zone: column \"tz\" is not in " +
                                            folder.str("samples/r.csv") + " (columns: phone, name)");
    }

    TEST_CASE("zone: without a window per recipient rows carry no zone") {
        campaign_file_test::Folder folder;
        folder.put("samples/r.csv", "phone,name\n+919812345678,Asha\n");
        auto c = folder.load(campaign_file_test::k_minimal);
        REQUIRE(c);
        auto stream = campaign::RecipientStream::open(*c);
        REQUIRE(stream);
        campaign::Recipient r;
        REQUIRE(next_row(*stream, r));
        CHECK(r.verdict == campaign::Verdict::ok);
        CHECK(r.zone.name.empty());
        CHECK(r.zone.source == ZoneSource::none);
    }
}
