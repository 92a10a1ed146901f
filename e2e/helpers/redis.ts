// The same throwaway redis-server the Vitest suites start (loopback, free port, no persistence).
export { startRedis, type TestRedis } from '../../test/redis/redisServer.ts';
