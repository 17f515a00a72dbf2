// glibc's malloc tuning (mallopt, M_ARENA_MAX), which the Glibc Swift module does not include.
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif
