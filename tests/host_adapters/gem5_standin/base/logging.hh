// Stand-in of gem5's src/base/logging.hh (see ../README.md): fatal() and panic() take a
// printf-style format as gem5's do, and throw instead of ending the process, so a test can
// check the message.
#ifndef __BASE_LOGGING_HH__
#define __BASE_LOGGING_HH__

#include <sstream>
#include <stdexcept>
#include <string>

namespace gem5 {
namespace standin {

/// What fatal() and panic() throw; what() is the formatted message.
class exit_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

inline void format_into(std::ostringstream& out, const char* f) {
    out << f;
}

/// Each %-conversion (flags, width and length skipped) prints the next argument with <<.
template <typename T, typename... Rest>
void format_into(std::ostringstream& out, const char* f, const T& first, const Rest&... rest) {
    for (; *f != '\0'; ++f) {
        if (*f != '%') {
            out << *f;
        } else if (f[1] == '%') {
            out << '%';
            ++f;
        } else {
            ++f;
            while (*f != '\0' && std::string("#-+ 0123456789.lhzjt").find(*f) != std::string::npos)
                ++f;
            out << first;
            if (*f == '\0') return;
            format_into(out, f + 1, rest...);
            return;
        }
    }
}

template <typename... Args>
[[noreturn]] void exit_message(const char* kind, const char* f, const Args&... args) {
    std::ostringstream out;
    out << kind << ": ";
    format_into(out, f, args...);
    throw exit_error(out.str());
}

} // namespace standin
} // namespace gem5

#define fatal(...) ::gem5::standin::exit_message("fatal", __VA_ARGS__)
#define panic(...) ::gem5::standin::exit_message("panic", __VA_ARGS__)
#define fatal_if(cond, ...)                                                                        \
    do {                                                                                           \
        if (cond) fatal(__VA_ARGS__);                                                              \
    } while (0)
#define panic_if(cond, ...)                                                                        \
    do {                                                                                           \
        if (cond) panic(__VA_ARGS__);                                                              \
    } while (0)

#endif // __BASE_LOGGING_HH__
