// Params set from text (core/param_text.hpp): the protocol P1-P3 on an archetype, round trips
// of every shipped policy's params through their own listing, and the errors a host's user sees.
#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <string>
#include <tuple>

#include <memsub/core/param_text.hpp>
#include <memsub/replacement/all.hpp>

using namespace memsub;

namespace archetype {

enum class colour : std::uint8_t { red, green };
constexpr std::array<std::pair<std::string_view, colour>, 2> enum_value_names(colour) noexcept {
    return {{{"red", colour::red}, {"green", colour::green}}};
}

struct inner {
    std::uint16_t width = 4;
    template <class V>
    friend void describe_params(V& v, inner& p) {
        v("width", p.width);
    }
};

struct params {
    std::uint32_t ways = 8;     // P1 unsigned
    std::int32_t offset = -2;   // P1 signed
    bool adaptive = true;       // P1 bool
    double ratio = 0.5;         // P1 real
    colour hue = colour::red;   // P1 named enum
    inner group{};              // P2 prefixed group
    inner flat{.width = 9};     // P2 joined group, keys unprefixed below
    std::uint64_t not_text = 0; // P3: a field the description leaves out
    template <class V>
    friend void describe_params(V& v, params& p) {
        v("ways", p.ways);
        v("offset", p.offset);
        v("adaptive", p.adaptive);
        v("ratio", p.ratio);
        v("hue", p.hue);
        v("group", p.group);
        v("", p.flat);
    }
};

struct undescribed {
    int knob = 1;
};

} // namespace archetype

static_assert(described_params<archetype::params>);
static_assert(described_params<archetype::inner>);
static_assert(!described_params<archetype::undescribed>);
static_assert(named_enum<archetype::colour>);
static_assert(!named_enum<int>);

TEST_CASE("param_text: every kind of field is listed and set (P1, P2)") {
    archetype::params p;
    CHECK(params_text(p) ==
          "ways=8,offset=-2,adaptive=true,ratio=0.5,hue=red,group.width=4,width=9");
    set_params_from_text(
        p, "ways=16,offset=-7,adaptive=off,ratio=0.25,hue=green,group.width=0x10,width=3",
        "archetype");
    CHECK(p.ways == 16);
    CHECK(p.offset == -7);
    CHECK(!p.adaptive);
    CHECK(p.ratio == 0.25);
    CHECK(p.hue == archetype::colour::green);
    CHECK(p.group.width == 16);
    CHECK(p.flat.width == 3);
    // A listing is a settings text that sets the same values.
    archetype::params q;
    set_params_from_text(q, params_text(p), "archetype");
    CHECK(params_text(q) == params_text(p));
    const auto fields = param_fields(p);
    REQUIRE(fields.size() == 7);
    CHECK(fields[0].takes == "unsigned");
    CHECK(fields[1].takes == "integer");
    CHECK(fields[2].takes == "bool");
    CHECK(fields[3].takes == "real");
    CHECK(fields[4].takes == "one of red|green");
    CHECK(fields[5].key == "group.width");
    CHECK(fields[6].key == "width");
    // "" and empty settings change nothing.
    archetype::params r;
    set_params_from_text(r, "", "archetype");
    set_params_from_text(r, ",,", "archetype");
    CHECK(params_text(r) == params_text(archetype::params{}));
}

TEST_CASE("param_text: a bad setting throws config_error naming component, key and value") {
    const auto message = [](std::string_view text) {
        archetype::params p;
        try {
            set_params_from_text(p, text, "archetype");
            return std::string("(accepted)");
        } catch (const config_error& e) {
            CHECK(e.component() == "archetype");
            return e.parameter() + " | " + e.value() + " | " + e.rule();
        }
    };
    CHECK(message("group.width=65536") ==
          "group.width | 65536 | must be an unsigned integer of at most 16 bits");
    CHECK(message("ways=-1") == "ways | -1 | must be an unsigned integer of at most 32 bits");
    CHECK(message("ways=+1").find("unsigned integer") != std::string::npos);
    CHECK(message("ways=1x").find("unsigned integer") != std::string::npos);
    CHECK(message("ways=").find("unsigned integer") != std::string::npos);
    CHECK(message("offset=2147483648") ==
          "offset | 2147483648 | must be an integer of at most 32 bits");
    CHECK(message("adaptive=maybe").find("must be true or false") != std::string::npos);
    CHECK(message("ratio=half") == "ratio | half | must be a real number");
    CHECK(message("hue=blue") == "hue | blue | must be one of red|green");
    CHECK(message("not_text=1") ==
          "not_text | 1 | names no parameter (there are: ways, offset, adaptive, ratio, hue, "
          "group.width, width)");
    CHECK(message("group=1").find("names no parameter") != std::string::npos);
    CHECK(message("group.height=1").find("names no parameter") != std::string::npos);
    CHECK(message("ways").find("each setting must be key=value") != std::string::npos);
    CHECK(message("=3").find("each setting must be key=value") != std::string::npos);
    archetype::undescribed u;
    CHECK_THROWS_WITH_AS(set_params_from_text(u, "knob=2", "undescribed"),
                         doctest::Contains("has none settable by text"), config_error);
    CHECK(param_fields(u).empty());
}

TEST_CASE("param_text: every shipped policy's keys are unique and round-trip (P3)") {
    const auto check = []<class P>() {
        typename P::params p{};
        const auto fields = param_fields(p);
        std::set<std::string> keys;
        for (const auto& f : fields) {
            CHECK(f.key.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_.") ==
                  std::string::npos);
            CHECK(keys.insert(f.key).second); // unique after P2's joining
        }
        typename P::params q{};
        set_params_from_text(q, params_text(p), "policy");
        CHECK(params_text(q) == params_text(p));
    };
    [&]<class... Ps>(std::tuple<Ps...>*) {
        (check.template operator()<Ps>(), ...);
    }(static_cast<replacement::all_policies*>(nullptr));
    check.operator()<replacement::opt>();
    // Settings reach the field they name, nested ones included.
    replacement::remap::params p{};
    set_params_from_text(p, "side1.reuse=7,victim_buffer.hashes=5,rrpv_bits=3,psel_bits=8",
                         "remap");
    CHECK(p.policy.weights[1].reuse == 7);
    CHECK(p.policy.victim_buffer.hashes == 5);
    CHECK(p.policy.rrip.rrpv_bits == 3);
    CHECK(p.psel_bits == 8);
}
