import { Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { parseStageConfig } from '../../infra/config/stage-config.js';
import { STRIP_API_PREFIX } from '../../infra/constructs/console.js';
import { PayoutsStack } from '../../infra/stacks/payouts-stack.js';
import { HSTS_MAX_AGE_SECONDS } from '../../lib/console/index.js';
import { stageConfigFromCdkJson, synthStack, testApp } from './support/synth.js';

describe('the console in AWS: a private bucket behind CloudFront, the API on the same origin', () => {
  const { stack, template } = synthStack('prod');
  const resolve = (value: unknown) => Stack.of(stack).resolve(value);

  it('keeps the files in a private, encrypted bucket no one reads but the distribution, over TLS only', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    });
    const policies = Object.values(template.findResources('AWS::S3::BucketPolicy'));
    const statements = policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement);
    // Only CloudFront, for this distribution (origin access control), reads objects; plain HTTP is denied.
    const reads = statements.filter((s: { Effect: string; Action: unknown }) => s.Effect === 'Allow');
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) {
      expect(read.Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
      expect(JSON.stringify(read.Condition)).toContain('AWS:SourceArn');
    }
    expect(
      statements.some(
        (s: { Effect: string; Condition?: unknown }) =>
          s.Effect === 'Deny' && JSON.stringify(s.Condition).includes('aws:SecureTransport'),
      ),
    ).toBe(true);
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
  });

  it('serves every answer with the CSP, HSTS and no framing', () => {
    template.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: Match.objectLike({
        SecurityHeadersConfig: Match.objectLike({
          ContentSecurityPolicy: {
            ContentSecurityPolicy: Match.anyValue(),
            Override: true,
          },
          StrictTransportSecurity: {
            AccessControlMaxAgeSec: HSTS_MAX_AGE_SECONDS,
            IncludeSubdomains: true,
            Override: true,
          },
          FrameOptions: { FrameOption: 'DENY', Override: true },
          ContentTypeOptions: { Override: true },
        }),
      }),
    });
    const [policy] = Object.values(template.findResources('AWS::CloudFront::ResponseHeadersPolicy'));
    const csp = JSON.stringify(
      resolve(policy?.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy),
    );
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe');
  });

  it('sends /api/* to the ops API uncached, with every header the signature covers but Host, and the prefix stripped', () => {
    const [distribution] = Object.values(template.findResources('AWS::CloudFront::Distribution'));
    const config = distribution?.Properties.DistributionConfig;
    expect(config.DefaultRootObject).toBe('index.html');
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    const [api] = config.CacheBehaviors;
    expect(api.PathPattern).toBe('/api/*');
    expect(api.AllowedMethods).toContain('POST');
    expect(api.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad'); // CachingDisabled
    expect(api.OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac'); // AllViewerExceptHostHeader
    expect(api.FunctionAssociations).toEqual([expect.objectContaining({ EventType: 'viewer-request' })]);
    template.hasResourceProperties('AWS::CloudFront::Function', {
      FunctionCode: STRIP_API_PREFIX,
      FunctionConfig: Match.objectLike({ Runtime: 'cloudfront-js-2.0' }),
    });
  });

  it('strips /api and only /api from the path, so the API sees the path the browser signed', () => {
    // The function's own code, run as CloudFront runs it: handler(event) answers the request to forward.
    const handler = new Function(`${STRIP_API_PREFIX}; return handler;`)() as (event: {
      request: { uri: string };
    }) => { uri: string };
    const forwarded = (uri: string) => handler({ request: { uri } }).uri;
    expect(forwarded('/api/payouts')).toBe('/payouts');
    expect(forwarded('/api/payouts/01K/approve')).toBe('/payouts/01K/approve');
    expect(forwarded('/api')).toBe('/');
    expect(forwarded('/apiary')).toBe('/apiary');
    expect(forwarded('/index.html')).toBe('/index.html');
  });

  it("signs people in on the pool's own page with a code and PKCE, back to the console only, exchanged for their group role", () => {
    template.resourceCountIs('AWS::Cognito::UserPoolDomain', 1);
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      ClientName: 'payouts-console',
      GenerateSecret: false,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthScopes: Match.arrayWith(['openid']),
      CallbackURLs: [Match.anyValue()],
    });
    template.hasResourceProperties('AWS::Cognito::IdentityPoolRoleAttachment', {
      RoleMappings: { console: Match.objectLike({ Type: 'Token', AmbiguousRoleResolution: 'Deny' }) },
    });
  });

  it('deploys the built files and a config.json naming the pool, the identity pool and the API path', () => {
    template.resourceCountIs('Custom::CDKBucketDeployment', 1);
    template.hasOutput('ConsoleUrl', {});
  });

  it('is left out when the stage turns it off', () => {
    const config = parseStageConfig('dev', { ...stageConfigFromCdkJson('dev'), console: { enabled: false } });
    const off = new PayoutsStack(testApp(), 'Payouts-dev', { stage: 'dev', config });
    expect(off.console).toBeUndefined();
  });
});
