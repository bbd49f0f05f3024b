#ifndef CCODECS_H
#define CCODECS_H
// PNG and JPEG decoding/encoding behind a setjmp boundary: libpng and libjpeg report fatal
// errors with longjmp, which must never cross Swift frames.
#endif
