// libdeflate's checksums (its compressor is used by the PNG writer in CPNG).
#include <libdeflate.h>
