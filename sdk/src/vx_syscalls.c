/* vx_syscalls.c — the few system hooks picolibc and C++ kernels need
 * (docs/vortex.md §3.4 "Syscall stubs").
 *  - stdin/stdout/stderr: a write-only stream whose bytes go to vx_putchar, so plain printf works
 *    (it is not serialised across threads: prefer vx_printf in multi-threaded code);
 *  - _write sends bytes to vx_putchar; _read/_open/_close/_lseek/_fstat/_isatty/_kill fail;
 *  - _getpid returns the hart id;
 *  - sbrk/_sbrk execute ebreak: there is no heap, so malloc stops the core (as on Vortex);
 *  - __cxa_pure_virtual executes ebreak.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <vx_print.h>

static int vx_stdio_put(char c, FILE* file) {
  (void)file;
  vx_putchar((unsigned char)c);
  return (unsigned char)c;
}

static FILE __vx_stdio = FDEV_SETUP_STREAM(vx_stdio_put, NULL, NULL, _FDEV_SETUP_WRITE);
FILE* const stdin = &__vx_stdio;
FILE* const stdout = &__vx_stdio;
FILE* const stderr = &__vx_stdio;

int _write(int file, const void* ptr, size_t len);
int _read(int file, void* ptr, size_t len);
int _open(const char* name, int flags, int mode);
int _close(int file);
off_t _lseek(int file, off_t offset, int whence);
int _fstat(int file, struct stat* st);
int _isatty(int file);
int _kill(int pid, int sig);
int _getpid(void);
void* _sbrk(ptrdiff_t incr);
void* sbrk(ptrdiff_t incr);
void __cxa_pure_virtual(void);

int _write(int file, const void* ptr, size_t len) {
  (void)file;
  const char* p = (const char*)ptr;
  for (size_t i = 0; i < len; ++i) {
    vx_putchar((unsigned char)p[i]);
  }
  return (int)len;
}

int _read(int file, void* ptr, size_t len) {
  (void)file; (void)ptr; (void)len;
  errno = ENOSYS;
  return -1;
}

int _open(const char* name, int flags, int mode) {
  (void)name; (void)flags; (void)mode;
  errno = ENOSYS;
  return -1;
}

int _close(int file) {
  (void)file;
  errno = ENOSYS;
  return -1;
}

off_t _lseek(int file, off_t offset, int whence) {
  (void)file; (void)offset; (void)whence;
  errno = ENOSYS;
  return -1;
}

int _fstat(int file, struct stat* st) {
  (void)file;
  st->st_mode = S_IFCHR;
  return 0;
}

int _isatty(int file) {
  (void)file;
  return 1;
}

int _kill(int pid, int sig) {
  (void)pid; (void)sig;
  errno = ENOSYS;
  return -1;
}

int _getpid(void) { return vx_hart_id(); }

void* _sbrk(ptrdiff_t incr) {
  (void)incr;
  __asm__ __volatile__ ("ebreak" ::: "memory");
  return (void*)-1;
}

void* sbrk(ptrdiff_t incr) { return _sbrk(incr); }

void __cxa_pure_virtual(void) {
  __asm__ __volatile__ ("ebreak" ::: "memory");
  for (;;) {
  }
}
